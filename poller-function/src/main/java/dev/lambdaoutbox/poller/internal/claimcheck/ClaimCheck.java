package dev.lambdaoutbox.poller.internal.claimcheck;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.Utf8;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;

/**
 * Where the claim check stores large payloads, and which it stores: every payload whose message is
 * over its destination's limit, and, with a threshold, every payload of more UTF-8 bytes than that.
 *
 * <p>An object's key is {@code prefix}, its destination's own prefix ({@code
 * sns|sqs|events/ACCOUNT/NAME/}), the event id and the payload's SHA-256: an id written again with
 * another payload gets another object, and a consumer's role may read its destinations' payloads
 * and no others.
 *
 * @param bucket the S3 bucket ({@code OUTBOX_CLAIM_CHECK_BUCKET})
 * @param prefix the key prefix ({@code OUTBOX_CLAIM_CHECK_PREFIX}), possibly empty
 * @param thresholdBytes payloads over this many bytes are stored even when their destination would
 *     take them; 0 for none ({@code OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES})
 * @param bucketOwner the account that owns the bucket, sent with every upload as S3's {@code
 *     ExpectedBucketOwner} ({@code OUTBOX_CLAIM_CHECK_BUCKET_OWNER})
 */
public record ClaimCheck(String bucket, String prefix, int thresholdBytes, String bucketOwner) {
  /** S3's longest object key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 1_024;

  /**
   * The longest destination prefix: {@code events/}, an account id, a name of up to 256 characters
   * (a topic's or a bus's; a queue's has 80) and two slashes.
   */
  static final int MAX_DESTINATION_PREFIX_BYTES = "events/".length() + 12 + 1 + 256 + 1;

  /** What follows the destination's prefix: an event id, '-' and a SHA-256 in hex. */
  static final int OBJECT_NAME_BYTES = 36 + 1 + 64;

  /**
   * The longest prefix: with any destination's and an object name it still makes a key S3 takes.
   */
  public static final int MAX_PREFIX_BYTES =
      MAX_KEY_BYTES - MAX_DESTINATION_PREFIX_BYTES - OBJECT_NAME_BYTES;

  public ClaimCheck {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(bucketOwner, "bucketOwner");
  }

  /**
   * The key prefix of {@code destination}'s payloads: {@code prefix} then {@code sns/}, {@code
   * sqs/} or {@code events/}, the destination's account and its name, each followed by '/'.
   */
  public String destinationPrefix(String destination) {
    String service;
    String account;
    String name;
    if (Destinations.isSnsTopicArn(destination)) {
      String[] arn = destination.split(":", 6);
      service = "sns";
      account = arn[4];
      name = arn[5];
    } else if (Destinations.isEventBusArn(destination)) {
      String[] arn = destination.split(":", 6);
      service = "events";
      account = arn[4];
      name = arn[5].substring("event-bus/".length());
    } else if (Destinations.isSqsQueueUrl(destination)) {
      String[] path = destination.split("/");
      service = "sqs";
      account = path[path.length - 2];
      name = path[path.length - 1];
    } else {
      throw new IllegalArgumentException("not a destination: " + destination);
    }
    return prefix + service + "/" + account + "/" + name + "/";
  }

  /** The object key of event {@code id}'s payload, {@code content}, sent to {@code destination}. */
  public String key(String destination, UUID id, byte[] content) {
    return destinationPrefix(destination) + id + "-" + sha256(content);
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
          + " bytes: with a destination's prefix, an event id and a digest it would make a key"
          + " longer than S3's "
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

  /** What is wrong with {@code owner} as the bucket owner's account id, or null. */
  public static String ownerProblem(String owner) {
    return owner.matches("\\d{12}")
        ? null
        : "is not an AWS account id (12 digits): the account that owns the bucket";
  }

  private static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
