package dev.lambdaoutbox.poller.internal.publish;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

/**
 * Where a stored payload is, as the message carries it. For SNS and SQS the body is what AWS's
 * payload-offloading libraries write (payloadoffloading-common's {@code PayloadS3Pointer}, used by
 * the SQS and SNS Extended Client Libraries), so their consumers resolve it unchanged:
 *
 * <pre>["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"B","s3Key":"K"}]
 * </pre>
 *
 * with the Number attribute {@value #SIZE_ATTRIBUTE} giving the payload's UTF-8 bytes. An
 * EventBridge entry's Detail must be a JSON object, so there it is {@code
 * {"payloadS3Pointer":{"s3BucketName":"B","s3Key":"K"},"extendedPayloadSize":N}}.
 *
 * @param sizeBytes the payload's size in UTF-8 bytes
 */
public record PayloadPointer(String bucket, String key, long sizeBytes) {
  /** The class name the libraries' pointer carries first. */
  public static final String POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer";

  /** The message attribute the libraries mark a pointer with, the payload's size its value. */
  public static final String SIZE_ATTRIBUTE = "ExtendedPayloadSize";

  /** The data type of {@link #SIZE_ATTRIBUTE}. */
  public static final String SIZE_ATTRIBUTE_TYPE = "Number";

  /** An SNS or SQS message's body. */
  public String messageBody() {
    return "[" + quote(POINTER_CLASS) + "," + location() + "]";
  }

  /** An EventBridge entry's Detail. */
  public String eventDetail() {
    return "{\"payloadS3Pointer\":" + location() + ",\"extendedPayloadSize\":" + sizeBytes + "}";
  }

  /** What {@link #SIZE_ATTRIBUTE} adds to a message's size as SNS and SQS count it. */
  public int sizeAttributeBytes() {
    return SIZE_ATTRIBUTE.length()
        + SIZE_ATTRIBUTE_TYPE.length()
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
