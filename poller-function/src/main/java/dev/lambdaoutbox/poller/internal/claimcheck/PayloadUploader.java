package dev.lambdaoutbox.poller.internal.claimcheck;

/** Stores one payload as an S3 object; throws the SDK's exception when it could not. */
public interface PayloadUploader {
  /**
   * Writes {@code content} (a payload's UTF-8 bytes) to {@code bucket}/{@code key}, replacing it,
   * if {@code bucket} is owned by the account {@code bucketOwner}.
   */
  void put(String bucket, String bucketOwner, String key, byte[] content);
}
