package dev.lambdaoutbox.consumer.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Reads the payload a {@link PayloadPointer} names from S3, as UTF-8, with the consumer's S3 client
 * and its own credentials. Whoever can send to the queue chooses the pointer, so before anything is
 * read:
 *
 * <ul>
 *   <li>the pointer must name an object in one of the {@linkplain ClaimCheckLocation locations} the
 *       consumer was given (bucket, and key prefix), or it is refused unread: the consumer's role
 *       may read more than the outbox's objects;
 *   <li>its size attribute must be at most {@code maxBytes}, the most the consumer holds in memory;
 *   <li>the object is asked for with the location's {@code ExpectedBucketOwner}, so S3 refuses a
 *       bucket of the same name in another account;
 *   <li>the object's Content-Length must be the pointer's size, checked before its body is read: an
 *       object of another size is not the payload that was published, and is not read.
 * </ul>
 */
public final class S3PayloadReader {
  private final S3Client s3;
  private final List<ClaimCheckLocation> locations;
  private final long maxBytes;

  /**
   * @param s3 the consumer's client, or null when it reads no claim checks
   * @param locations where pointers may point; every one refused when empty
   * @param maxBytes the largest payload read
   */
  public S3PayloadReader(S3Client s3, List<ClaimCheckLocation> locations, long maxBytes) {
    this.s3 = s3;
    this.locations = List.copyOf(Objects.requireNonNull(locations, "locations"));
    if (maxBytes <= 0 || maxBytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("maxBytes: out of range, was " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** A reader of a consumer built without an S3 client: every pointer fails, naming its object. */
  public static S3PayloadReader none() {
    return new S3PayloadReader(null, List.of(), 1);
  }

  /**
   * The payload.
   *
   * @throws UnreadableRecordException when no S3 client is configured, the pointer is outside the
   *     allowed locations, or its size is over the maximum: it fails on every delivery, unread
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
              + " SqsInboxConsumer.builder().s3(S3Client).claimCheckLocation(owner, bucket,"
              + " prefix) and allow it s3:GetObject on that prefix");
    }
    ClaimCheckLocation location = locationOf(pointer);
    if (pointer.size() < 0 || pointer.size() > maxBytes) {
      throw new UnreadableRecordException(
          PayloadPointer.SIZE_ATTRIBUTE
              + ": the claim check at "
              + pointer.location()
              + " says "
              + pointer.size()
              + " bytes; this consumer reads payloads of 0 to "
              + maxBytes
              + " bytes (SqsInboxConsumer.Builder.claimCheckMaxBytes), so it is not read");
    }
    ResponseInputStream<GetObjectResponse> object;
    try {
      object =
          s3.getObject(
              r ->
                  r.bucket(pointer.bucket())
                      .key(pointer.key())
                      .expectedBucketOwner(location.bucketOwner()));
    } catch (S3Exception e) {
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      throw unavailable(pointer, e.statusCode() + " " + (code == null ? e.getMessage() : code), e);
    } catch (SdkException e) {
      throw unavailable(pointer, e.getMessage(), e);
    }
    try (object) {
      Long length = object.response().contentLength();
      if (length == null || length != pointer.size()) {
        object.abort(); // the body is not read: nothing of an object of another size is wanted
        throw unavailable(
            pointer,
            "it holds "
                + length
                + " bytes and the message's "
                + PayloadPointer.SIZE_ATTRIBUTE
                + " says "
                + pointer.size()
                + ", so it is not the payload that was published",
            null);
      }
      byte[] bytes = object.readNBytes((int) pointer.size());
      if (bytes.length != pointer.size() || object.read() != -1) {
        object.abort();
        throw unavailable(
            pointer, "its body did not hold the " + pointer.size() + " bytes it announced", null);
      }
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException | SdkException e) {
      throw unavailable(pointer, "reading it failed: " + e.getMessage(), e);
    }
  }

  /** The location that holds the pointer's object; refuses one outside them all. */
  private ClaimCheckLocation locationOf(PayloadPointer pointer) {
    for (ClaimCheckLocation location : locations) {
      if (location.holds(pointer.bucket(), pointer.key())) {
        return location;
      }
    }
    throw new UnreadableRecordException(
        "payload: the claim check points to "
            + pointer.location()
            + ", outside the locations this consumer reads claim checks from ("
            + locations.stream().map(ClaimCheckLocation::toString).collect(Collectors.joining(", "))
            + "), so it is not read; whoever sent it chose an object this consumer must not"
            + " fetch, or the outbox's prefix is missing from"
            + " SqsInboxConsumer.Builder.claimCheckLocation");
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
