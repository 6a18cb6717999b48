package dev.lambdaoutbox.consumer.internal;

import dev.lambdaoutbox.core.ClaimCheckFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a consumer accepts claim checks: objects in {@code bucket} whose key begins with {@code
 * keyPrefix}, the bucket owned by the AWS account {@code bucketOwner} (sent to S3 as {@code
 * ExpectedBucketOwner}, so a bucket of the same name in another account is never read).
 */
public record ClaimCheckLocation(String bucketOwner, String bucket, String keyPrefix) {
  private static final Pattern ACCOUNT_ID = Pattern.compile("\\d{12}");

  /**
   * @throws IllegalArgumentException naming the argument that is not an account id, a bucket name
   *     or a key prefix
   */
  public ClaimCheckLocation {
    Objects.requireNonNull(bucketOwner, "bucketOwner");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    if (!ACCOUNT_ID.matcher(bucketOwner).matches()) {
      throw new IllegalArgumentException(
          "bucketOwner: '"
              + bucketOwner
              + "' is not an AWS account id (12 digits): the account that owns the bucket");
    }
    String problem = ClaimCheckFormat.bucketProblem(bucket);
    if (problem != null) {
      throw new IllegalArgumentException("bucket: '" + bucket + "' " + problem);
    }
    if (keyPrefix.startsWith("/")) {
      throw new IllegalArgumentException(
          "keyPrefix: '" + keyPrefix + "' begins with '/': S3 keys have no leading slash");
    }
  }

  /** Whether the object {@code bucket}/{@code key} is in this location. */
  public boolean holds(String bucket, String key) {
    return this.bucket.equals(bucket) && key.startsWith(keyPrefix);
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + keyPrefix + " (owner " + bucketOwner + ")";
  }
}
