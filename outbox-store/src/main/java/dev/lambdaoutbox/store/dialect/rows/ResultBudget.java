package dev.lambdaoutbox.store.dialect.rows;

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
   * A payload longer than this many characters comes back cut to this length from a claim with a
   * budget. It then holds more than the 256 KiB SNS and SQS accept, so the poller dead-letters the
   * row as too large, and the dead letter, copied in SQL, keeps the whole payload; the claim never
   * fails on one huge row.
   */
  public static final int MAX_CLAIMED_PAYLOAD_CHARS = 256 * 1024 + 1;

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
