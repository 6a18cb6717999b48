package dev.lambdaoutbox.core;

import java.util.Set;

/**
 * The shape of a claim check on SNS and SQS, shared by the poller that writes it and the consumer
 * that reads it: the pointer AWS's payload-offloading libraries write (payloadoffloading-common's
 * {@code PayloadS3Pointer}, used by the SQS and SNS Extended Client Libraries), so either side
 * reads the other's messages. The message body is
 *
 * <pre>["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"B","s3Key":"K"}]
 * </pre>
 *
 * and the Number attribute {@value #SIZE_ATTRIBUTE} gives the payload's size in UTF-8 bytes.
 *
 * <p>Readers take a message as a pointer by the attribute alone ({@link #SIZE_ATTRIBUTES}), so an
 * event may carry no header of either name: it would make its message point to an S3 object of the
 * producer's choosing, or overwrite a real pointer's size.
 */
public final class ClaimCheckFormat {
  /** The class name the pointer carries first. */
  public static final String POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer";

  /** The message attribute that marks a pointer, the payload's size its value. */
  public static final String SIZE_ATTRIBUTE = "ExtendedPayloadSize";

  /** The name older releases of the SQS Extended Client Library gave the same attribute. */
  public static final String LEGACY_SIZE_ATTRIBUTE = "SQSLargePayloadSize";

  /** Both names: either marks a pointer to the libraries' readers. */
  public static final Set<String> SIZE_ATTRIBUTES = Set.of(SIZE_ATTRIBUTE, LEGACY_SIZE_ATTRIBUTE);

  /** The data type of {@link #SIZE_ATTRIBUTE}. */
  public static final String SIZE_ATTRIBUTE_TYPE = "Number";

  private ClaimCheckFormat() {}

  /**
   * What is wrong with {@code bucket} as an S3 bucket name, or null: 3 to 63 characters of
   * lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit.
   */
  public static String bucketProblem(String bucket) {
    if (bucket.length() < 3 || bucket.length() > 63) {
      return "is not an S3 bucket name: it must be 3 to 63 characters long";
    }
    if (!bucket.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]")) {
      return "is not an S3 bucket name: use lower-case letters, digits, dots and hyphens,"
          + " beginning and ending with a letter or digit (the name, not an ARN or s3:// URL)";
    }
    return null;
  }
}
