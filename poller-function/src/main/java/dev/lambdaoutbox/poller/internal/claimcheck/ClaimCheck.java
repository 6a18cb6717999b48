package dev.lambdaoutbox.poller.internal.claimcheck;

import dev.lambdaoutbox.core.Utf8;
import java.util.Objects;
import java.util.UUID;

/**
 * Where the claim check stores large payloads, and which it stores: every payload whose message is
 * over its destination's limit, and, with a threshold, every payload of more UTF-8 bytes than that.
 * An event's object is {@code prefix + event id}, so a replay or a second publish of the same event
 * writes the same object again, with the same content.
 *
 * @param bucket the S3 bucket ({@code OUTBOX_CLAIM_CHECK_BUCKET})
 * @param prefix the key prefix ({@code OUTBOX_CLAIM_CHECK_PREFIX}), possibly empty
 * @param thresholdBytes payloads over this many bytes are stored even when their destination would
 *     take them; 0 for none ({@code OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES})
 */
public record ClaimCheck(String bucket, String prefix, int thresholdBytes) {
  /** S3's longest object key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 1_024;

  /** An event id's length in a key (a UUID's canonical text). */
  private static final int ID_CHARS = 36;

  /** The longest prefix: with an event id it still makes a key S3 takes. */
  public static final int MAX_PREFIX_BYTES = MAX_KEY_BYTES - ID_CHARS;

  public ClaimCheck {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
  }

  /** The object key of event {@code id}'s payload. */
  public String key(UUID id) {
    return prefix + id;
  }

  /** Whether a payload of {@code payloadBytes} is stored whatever its destination's limit. */
  public boolean overThreshold(long payloadBytes) {
    return thresholdBytes > 0 && payloadBytes > thresholdBytes;
  }

  /** What is wrong with {@code prefix} as a key prefix, or null. */
  public static String prefixProblem(String prefix) {
    if (Utf8.length(prefix) > MAX_PREFIX_BYTES) {
      return "is longer than "
          + MAX_PREFIX_BYTES
          + " bytes: with an event id it would make a key longer than S3's "
          + MAX_KEY_BYTES;
    }
    if (prefix.startsWith("/")) {
      return "begins with '/': S3 keys have no leading slash; write e.g. outbox-payloads/";
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (Character.isISOControl(prefix.charAt(i))) {
        return "holds a control character";
      }
    }
    return null;
  }
}
