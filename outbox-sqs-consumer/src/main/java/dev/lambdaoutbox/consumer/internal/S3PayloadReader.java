package dev.lambdaoutbox.consumer.internal;

import java.nio.charset.StandardCharsets;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Reads the payload a {@link PayloadPointer} names from S3, as UTF-8, with the consumer's S3 client
 * (or refuses, naming the object, when the consumer has none). The object must hold as many bytes
 * as the pointer's size attribute says; anything else fails the record rather than hand over a
 * payload that is not the one published.
 */
public final class S3PayloadReader {
  private final S3Client s3;

  /** With {@code s3}, or null when the consumer was built without an S3 client. */
  public S3PayloadReader(S3Client s3) {
    this.s3 = s3;
  }

  /**
   * The payload.
   *
   * @throws UnreadableRecordException when no S3 client is configured
   * @throws PayloadUnavailableException when S3 does not give the object, or gives one of another
   *     size
   */
  public String read(PayloadPointer pointer) {
    if (s3 == null) {
      throw new UnreadableRecordException(
          "payload: stored in S3 (bucket "
              + pointer.bucket()
              + ", key "
              + pointer.key()
              + ", "
              + pointer.size()
              + " bytes) and this consumer has no S3 client; build it with"
              + " SqsInboxConsumer.builder().s3(S3Client) and allow it s3:GetObject on the bucket");
    }
    byte[] bytes;
    try {
      bytes = s3.getObjectAsBytes(r -> r.bucket(pointer.bucket()).key(pointer.key())).asByteArray();
    } catch (S3Exception e) {
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      throw unavailable(pointer, e.statusCode() + " " + (code == null ? e.getMessage() : code), e);
    } catch (SdkException e) {
      throw unavailable(pointer, e.getMessage(), e);
    }
    if (bytes.length != pointer.size()) {
      throw unavailable(
          pointer,
          "it holds "
              + bytes.length
              + " bytes and the message's "
              + PayloadPointer.SIZE_ATTRIBUTE
              + " says "
              + pointer.size()
              + ", so it is not the payload that was published",
          null);
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static PayloadUnavailableException unavailable(
      PayloadPointer pointer, String reason, Exception cause) {
    return new PayloadUnavailableException(
        "payload: could not read it from S3 (bucket "
            + pointer.bucket()
            + ", key "
            + pointer.key()
            + "): "
            + reason,
        cause);
  }
}
