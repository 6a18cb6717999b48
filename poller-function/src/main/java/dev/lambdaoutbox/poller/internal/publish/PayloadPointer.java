package dev.lambdaoutbox.poller.internal.publish;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.lambdaoutbox.core.ClaimCheckFormat;

/**
 * Where a stored payload is, as the message carries it. For SNS and SQS the body is the pointer of
 * AWS's payload-offloading libraries, with the size attribute ({@link ClaimCheckFormat}), so their
 * consumers resolve it unchanged. An EventBridge entry's Detail must be a JSON object, so there it
 * is {@code {"payloadS3Pointer":{"s3BucketName":"B","s3Key":"K"},"extendedPayloadSize":N}}.
 *
 * @param sizeBytes the payload's size in UTF-8 bytes
 */
public record PayloadPointer(String bucket, String key, long sizeBytes) {
  /** An SNS or SQS message's body. */
  public String messageBody() {
    return "[" + quote(ClaimCheckFormat.POINTER_CLASS) + "," + location() + "]";
  }

  /** An EventBridge entry's Detail. */
  public String eventDetail() {
    return "{\"payloadS3Pointer\":" + location() + ",\"extendedPayloadSize\":" + sizeBytes + "}";
  }

  /**
   * What {@link ClaimCheckFormat#SIZE_ATTRIBUTE} adds to a message's size as SNS and SQS count it.
   */
  public int sizeAttributeBytes() {
    return ClaimCheckFormat.SIZE_ATTRIBUTE.length()
        + ClaimCheckFormat.SIZE_ATTRIBUTE_TYPE.length()
        + Long.toString(sizeBytes).length();
  }

  private String location() {
    return "{\"s3BucketName\":" + quote(bucket) + ",\"s3Key\":" + quote(key) + "}";
  }

  /** {@code text} as a JSON string, escaped as Jackson (which the libraries use) escapes it. */
  private static String quote(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }
}
