package dev.lambdaoutbox.poller.internal.claimcheck;

/** Stores one payload as an S3 object; throws the SDK's exception when it could not. */
public interface PayloadUploader {
  /**
   * Writes {@code content} (a payload's UTF-8 bytes) to {@code bucket}/{@code key}, replacing it.
   */
  void put(String bucket, String key, byte[] content);
}
