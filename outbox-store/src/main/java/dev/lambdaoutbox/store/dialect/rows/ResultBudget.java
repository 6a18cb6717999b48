package dev.lambdaoutbox.store.dialect.rows;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Sizing statements that return many large rows to a session's result budget ({@link
 * SqlSession#maxResultBytes()}): rows are measured in SQL first ({@link #MESSAGE_BYTES}, {@link
 * #DEAD_LETTER_BYTES}: the UTF-8 bytes of their text plus a fixed allowance for the rest), then
 * fetched in groups that fit.
 */
public final class ResultBudget {
  /** What a row's ids, times, counters and their framing in a response add to its text. */
  public static final int ROW_OVERHEAD = 512;

  /** A claimed outbox row's size, in SQL both dialects run. */
  public static final String MESSAGE_BYTES =
      "octet_length(payload) + COALESCE(octet_length(headers), 0)"
          + " + COALESCE(octet_length(destination), 0) + COALESCE(octet_length(idempotency_key), 0)"
          + " + octet_length(aggregate_type) + octet_length(aggregate_id)"
          + " + octet_length(event_type) + "
          + ROW_OVERHEAD;

  /** {@link #MESSAGE_BYTES} over the columns of the table under {@code alias}. */
  public static String messageBytes(String alias) {
    return MESSAGE_BYTES.replaceAll("octet_length\\((\\w+)\\)", "octet_length(" + alias + ".$1)");
  }

  /** A dead letter's size, in SQL both dialects run. */
  public static final String DEAD_LETTER_BYTES =
      MESSAGE_BYTES + " + octet_length(error_code) + COALESCE(octet_length(error_reason), 0)";

  /**
   * A payload of more UTF-8 bytes than this comes back cut from a claim with a budget: more than
   * the 256 KiB SNS and SQS accept, it can never be published.
   */
  public static final int PAYLOAD_CUT_ABOVE_BYTES = MessageSize.MAX_BYTES;

  /**
   * How many characters of a cut payload a claim returns: a quarter of {@link
   * #PAYLOAD_CUT_ABOVE_BYTES}, so at most 256 KiB whatever the characters (UTF-8 takes at most four
   * bytes for one). The cut is by characters, so it never splits one.
   */
  public static final int PAYLOAD_CUT_CHARS = PAYLOAD_CUT_ABOVE_BYTES / 4;

  /**
   * The payload column of a claim with a budget, for the table under {@code alias} ("" for none):
   * the payload, or its first {@link #PAYLOAD_CUT_CHARS} characters when it holds more than {@link
   * #PAYLOAD_CUT_ABOVE_BYTES} bytes, and its stored size as {@code payload_bytes}. The poller sees
   * the size, so dead-letters the row as too large, and the dead letter, copied in SQL, keeps the
   * whole payload; the claim never fails on one huge row. Both dialects run it ({@code left} counts
   * characters in each).
   */
  public static String cutPayload(String alias) {
    String payload = alias.isEmpty() ? "payload" : alias + ".payload";
    return cutPayloadOnly(payload) + " AS payload, octet_length(" + payload + ") AS payload_bytes";
  }

  /** The {@code payload} column (qualified as needed) cut as {@link #cutPayload} cuts it. */
  public static String cutPayloadOnly(String payload) {
    return "CASE WHEN octet_length("
        + payload
        + ") > "
        + PAYLOAD_CUT_ABOVE_BYTES
        + " THEN left("
        + payload
        + ", "
        + PAYLOAD_CUT_CHARS
        + ") ELSE "
        + payload
        + " END";
  }

  private ResultBudget() {}

  /** True when the session puts no bound on a result. */
  public static boolean unbounded(SqlSession s) {
    return s.maxResultBytes() == Long.MAX_VALUE;
  }

  /** The budget as a statement parameter. */
  public static int asParameter(SqlSession s) {
    return (int) Math.min(Integer.MAX_VALUE, s.maxResultBytes());
  }

  /**
   * Cuts rows of {@code id} and {@code bytes}, in order, into consecutive groups of at most {@code
   * budget} bytes; a row larger than the budget makes a group of its own.
   */
  public static List<List<UUID>> groups(List<Row> sizes, long budget) {
    List<List<UUID>> groups = new ArrayList<>();
    List<UUID> group = new ArrayList<>();
    long bytes = 0;
    for (Row row : sizes) {
      long size = row.longValue("bytes");
      if (!group.isEmpty() && bytes + size > budget) {
        groups.add(group);
        group = new ArrayList<>();
        bytes = 0;
      }
      group.add(row.uuid("id"));
      bytes += size;
    }
    if (!group.isEmpty()) {
      groups.add(group);
    }
    return groups;
  }

  /** How many of the rows, in order, fit in {@code budget} bytes; at least one when any exist. */
  public static int fitting(List<Row> sizes, long budget) {
    long bytes = 0;
    for (int i = 0; i < sizes.size(); i++) {
      bytes += sizes.get(i).longValue("bytes");
      if (i > 0 && bytes > budget) {
        return i;
      }
    }
    return sizes.size();
  }
}
