package dev.lambdaoutbox.store.model.deadletter;

import dev.lambdaoutbox.store.model.ErrorText;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What makes dead letters one failure group: the same error code, the same reason once what varies
 * from row to row is masked (ids, numbers, UUIDs, ARNs' accounts and resources, queue URLs, quoted
 * values), the same event type and the same destination.
 *
 * <p>The poller masks the reason here when it moves a row to the dead letters, and the move's own
 * statement hashes it with the row's event type and destination as {@link #of} does ({@code
 * md5(concat(code, '|', masked, '|', event_type, '|', coalesce(destination, '')))}), so that the
 * move costs no extra statement. The reprocessor's backfill of older rows computes the same here.
 *
 * @param id 32 hex characters, the md5 of the four parts
 * @param maskedReason the reason masked, at most {@link #MAX_MASKED_REASON} characters
 */
public record FailureFingerprint(String id, String maskedReason) {
  /** The longest masked reason kept (and hashed). */
  public static final int MAX_MASKED_REASON = 500;

  /** Characters of a reason masked: enough to tell causes apart, bounded whatever the reason. */
  static final int MASKED_FROM = 2_000;

  private static final Pattern ARN =
      Pattern.compile("\\b(arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:)(\\d{12}|\\*)?:[^\\s'\",;)\\]]+");
  private static final Pattern QUEUE_URL =
      Pattern.compile("(https?://[a-z0-9.-]+)/\\d{12}/[A-Za-z0-9_.-]+");
  private static final Pattern SINGLE_QUOTED = Pattern.compile("'[^']*'");
  private static final Pattern DOUBLE_QUOTED = Pattern.compile("\"[^\"]*\"");
  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b");
  private static final Pattern HEX_ID = Pattern.compile("\\b(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{8,}\\b");

  /** Marks text set aside while the rest is masked; removed from the reason first. */
  private static final char KEPT = '\u0001';

  private static final Pattern KEPT_MARK = Pattern.compile("\u0001([a-z])\u0001");
  private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?");

  /** The fingerprint of a dead letter with this error, event type and destination. */
  public static FailureFingerprint of(
      String errorCode, String reason, String eventType, String destination) {
    String masked = mask(reason);
    return new FailureFingerprint(hash(errorCode, masked, eventType, destination), masked);
  }

  /**
   * The reason with what varies from row to row masked: ARNs keep their partition, service and
   * region; queue URLs their host; everything else masked is a placeholder in angle brackets. Empty
   * for no reason.
   */
  public static String mask(String reason) {
    if (reason == null) {
      return "";
    }
    // ARNs and queue URLs masked first, and set aside so that the masks after them keep their
    // service, region and host ("us-east-1" is no id).
    List<String> kept = new ArrayList<>();
    String s = ErrorText.clip(reason, MASKED_FROM).replace(KEPT, ' ');
    s = replace(ARN, s, m -> keep(kept, m.group(1) + "<account>:<resource>"));
    s = replace(QUEUE_URL, s, m -> keep(kept, m.group(1) + "/<account>/<queue>"));
    s = SINGLE_QUOTED.matcher(s).replaceAll("'<value>'");
    s = DOUBLE_QUOTED.matcher(s).replaceAll("\"<value>\"");
    s = UUID_TEXT.matcher(s).replaceAll("<uuid>");
    s = HEX_ID.matcher(s).replaceAll("<id>");
    s = NUMBER.matcher(s).replaceAll("<n>");
    s = replace(KEPT_MARK, s, m -> kept.get(m.group(1).charAt(0) - 'a'));
    return ErrorText.clip(s, MAX_MASKED_REASON);
  }

  /** A mark for {@code text}, set aside in {@code kept}: a letter between two {@link #KEPT}. */
  private static String keep(List<String> kept, String text) {
    if (kept.size() == 26) {
      return text; // a reason of more than 26 ARNs: the rest are masked further, still alike
    }
    kept.add(text);
    return KEPT + String.valueOf((char) ('a' + kept.size() - 1)) + KEPT;
  }

  /** The md5, in hex, of the parts joined by {@code |} as UTF-8: what the move's SQL computes. */
  static String hash(String errorCode, String masked, String eventType, String destination) {
    String joined =
        errorCode + "|" + masked + "|" + eventType + "|" + (destination == null ? "" : destination);
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("MD5").digest(joined.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has MD5", e);
    }
  }

  private static String replace(
      Pattern pattern, String text, java.util.function.Function<MatchResult, String> with) {
    return pattern.matcher(text).replaceAll(m -> Matcher.quoteReplacement(with.apply(m)));
  }
}
