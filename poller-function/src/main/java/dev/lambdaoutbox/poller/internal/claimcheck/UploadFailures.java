package dev.lambdaoutbox.poller.internal.claimcheck;

import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * What a failed upload says, in the words a row's last error and the logs carry: the S3 error code
 * (or the exception's kind) as {@code S3:<code>}, and a reason that names the bucket and key and,
 * for a bucket that is missing or closed to the poller, what to fix. Every failure leaves the row
 * waiting for the bucket, no retry spent: none is the message's own.
 */
public final class UploadFailures {
  /** Codes that say the bucket is missing or closed to the poller, until an operator acts. */
  static final Set<String> MISCONFIGURED =
      Set.of(
          "NoSuchBucket",
          "AccessDenied",
          "AllAccessDisabled",
          "AccountProblem",
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "InvalidBucketName",
          "PermanentRedirect",
          "AuthorizationHeaderMalformed",
          "KMS.DisabledException",
          "KMS.NotFoundException",
          "KMS.KMSInvalidStateException",
          "KMS.AccessDeniedException");

  /** Which upload failed and why. */
  public record UploadFailure(String code, String reason, boolean misconfigured) {}

  private UploadFailures() {}

  /** The failure {@code error} stands for, storing {@code key} in {@code bucket}. */
  public static UploadFailure of(Throwable error, String bucket, String key) {
    String code =
        error instanceof AwsServiceException s
                && s.awsErrorDetails() != null
                && s.awsErrorDetails().errorCode() != null
            ? s.awsErrorDetails().errorCode()
            : error.getClass().getSimpleName();
    boolean misconfigured =
        MISCONFIGURED.contains(code)
            || (error instanceof AwsServiceException s
                && (s.statusCode() == 403 || s.statusCode() == 301));
    String detail = error.getMessage() == null ? "" : error.getMessage();
    String reason =
        "the claim check could not store the payload in S3 bucket '"
            + bucket
            + "' (key "
            + key
            + "): "
            + code
            + (detail.isEmpty() ? "" : ": " + detail)
            + (misconfigured
                ? "; check that bucket "
                    + bucket
                    + " exists in the poller's region and that the poller's role may"
                    + " s3:PutObject on it (OUTBOX_CLAIM_CHECK_BUCKET)"
                : "");
    return new UploadFailure("S3:" + code, reason, misconfigured);
  }
}
