package dev.lambdaoutbox.core;

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
 */
public final class ClaimCheckFormat {
  /** The class name the pointer carries first. */
  public static final String POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer";

  /** The message attribute that marks a pointer, the payload's size its value. */
  public static final String SIZE_ATTRIBUTE = "ExtendedPayloadSize";

  /** The data type of {@link #SIZE_ATTRIBUTE}. */
  public static final String SIZE_ATTRIBUTE_TYPE = "Number";

  private ClaimCheckFormat() {}
}
