package dev.lambdaoutbox.poller.internal.publish;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.lambdaoutbox.core.ClaimCheckFormat;

/**
 * Where a stored payload is, as the message carries it. For SNS and SQS the body is the pointer of
 * AWS's payload-offloading libraries, with the size attribute ({@link ClaimCheckFormat}), so their
 * consumers resolve it unchanged. An EventBridge entry's Detail must be a JSON object, so there it
 * is {@code {"payloadS3Pointer":{"s3BucketName":"B","s3Key":"K"},"extendedPayloadSize":N}},
 * followed by the payload's {@linkplain MatchableFields matchable fields}, so that a bus's rules on
 * them still match.
 *
 * @param sizeBytes the payload's size in UTF-8 bytes
 * @param detailFields the payload's members an EventBridge Detail keeps beside the pointer, as JSON
 *     members without braces; empty for none (and for SNS and SQS)
 */
public record PayloadPointer(String bucket, String key, long sizeBytes, String detailFields) {
  /** A pointer whose Detail holds nothing beside it. */
  public PayloadPointer(String bucket, String key, long sizeBytes) {
    this(bucket, key, sizeBytes, "");
  }

  /** An SNS or SQS message's body. */
  public String messageBody() {
    return "[" + quote(ClaimCheckFormat.POINTER_CLASS) + "," + location() + "]";
  }

  /** An EventBridge entry's Detail. */
  public String eventDetail() {
    return "{\"payloadS3Pointer\":"
        + location()
        + ",\"extendedPayloadSize\":"
        + sizeBytes
        + (detailFields.isEmpty() ? "" : "," + detailFields)
        + "}";
  }

  /** This pointer with {@code fields} beside it in a Detail. */
  public PayloadPointer withDetailFields(String fields) {
    return new PayloadPointer(bucket, key, sizeBytes, fields);
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
