package dev.lambdaoutbox.poller.internal.claimcheck;

import java.util.Objects;
import java.util.function.Supplier;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Stores payloads with S3 {@code PutObject}, as JSON text in UTF-8, with {@code
 * ExpectedBucketOwner}: a bucket of the same name in another account refuses the write (403) rather
 * than receive the payload. The client is built on the first upload: most pollers never store one,
 * and loading the S3 client costs a cold start time.
 */
public final class S3PayloadUploader implements PayloadUploader {
  /** The Content-Type of a stored payload. */
  public static final String CONTENT_TYPE = "application/json; charset=utf-8";

  private final Supplier<? extends S3Client> factory;
  private volatile S3Client s3;

  public S3PayloadUploader(Supplier<? extends S3Client> factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  @Override
  public void put(String bucket, String bucketOwner, String key, byte[] content) {
    client()
        .putObject(
            r ->
                r.bucket(bucket)
                    .expectedBucketOwner(bucketOwner)
                    .key(key)
                    .contentType(CONTENT_TYPE)
                    .contentLength((long) content.length),
            RequestBody.fromBytes(content));
  }

  private S3Client client() {
    S3Client built = s3;
    if (built == null) {
      synchronized (this) {
        built = s3;
        if (built == null) {
          built = Objects.requireNonNull(factory.get(), "s3");
          s3 = built;
        }
      }
    }
    return built;
  }
}
