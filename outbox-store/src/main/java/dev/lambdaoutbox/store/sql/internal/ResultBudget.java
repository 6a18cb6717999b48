package dev.lambdaoutbox.store.sql.internal;

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
 * fetched in groups that fit, each row within {@link #MAX_ROW_BYTES} (its large columns cut and
 * read in pieces where it would not be).
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
    return alias.isEmpty()
        ? MESSAGE_BYTES
        : MESSAGE_BYTES.replaceAll("octet_length\\((\\w+)\\)", "octet_length(" + alias + ".$1)");
  }

  /** A dead letter's size, in SQL both dialects run. */
  public static final String DEAD_LETTER_BYTES =
      MESSAGE_BYTES + " + octet_length(error_code) + COALESCE(octet_length(error_reason), 0)";

  /** {@link #DEAD_LETTER_BYTES} over the columns of the table under {@code alias} ("" for none). */
  public static String deadLetterBytes(String alias) {
    return alias.isEmpty()
        ? DEAD_LETTER_BYTES
        : DEAD_LETTER_BYTES.replaceAll(
            "octet_length\\((\\w+)\\)", "octet_length(" + alias + ".$1)");
  }

  /**
   * The most bytes one row may hold in a session that bounds rows ({@link
   * SqlSession#maxRowBytes()}: the RDS Data API's 64 KB a row of the result set, read as 64,000
   * bytes). A row's size in {@link #MESSAGE_BYTES} and {@link #DEAD_LETTER_BYTES} counts every
   * column's text and {@link #ROW_OVERHEAD} for the rest, so a row within this many bytes of those
   * is within the limit.
   */
  public static final int MAX_ROW_BYTES = 64_000;

  /** Whether the session bounds a row ({@link SqlSession#maxRowBytes()}). */
  public static boolean rowBounded(SqlSession s) {
    return s.maxRowBytes() != Long.MAX_VALUE;
  }

  /**
   * Headers of more UTF-8 bytes than this come back NULL from a bounded read, their size beside
   * them ({@code headers_bytes}), and are read in pieces ({@link
   * dev.lambdaoutbox.store.internal.dialect.portable.ColumnPieces}): with them and a payload cut,
   * any row of either table stays within {@link #MAX_ROW_BYTES} (names of 255 characters, a
   * destination of 2,048 and an error reason of 4,000 take at most 33,272 bytes of UTF-8 beside
   * them).
   */
  public static final int MAX_HEADERS_IN_ROW_BYTES = 16 * 1024;

  /**
   * How many characters of its payload a dead letter too large for one row keeps in a read where
   * rows are bounded, and the longest payload preview of a listing there: with names of 255
   * characters, a destination of 2,048, an error reason of 4,000 and headers of {@link
   * #MAX_HEADERS_IN_ROW_BYTES}, all of 4-byte characters, a row holds 61,368 bytes. Nothing writes
   * a payload read from the dead letters (a replay and an audit snapshot copy it in SQL).
   */
  public static final int DEAD_LETTER_CUT_CHARS = 4_000;

  /**
   * The details of an audit entry of more UTF-8 bytes than this come back NULL from a read where
   * rows are bounded, with their size ({@code details_bytes}), and are read in pieces.
   */
  public static final int MAX_DETAILS_IN_ROW_BYTES = 32 * 1024;

  /** {@code previewChars}, at most {@link #DEAD_LETTER_CUT_CHARS} where rows are bounded. */
  public static int previewChars(SqlSession s, int previewChars) {
    return rowBounded(s) ? Math.min(previewChars, DEAD_LETTER_CUT_CHARS) : previewChars;
  }

  /**
   * How many characters of a payload a claim with a budget returns when it cuts it: enough for the
   * poller to see what kind of JSON it is (an event bus takes only an object), at most 4,000 bytes.
   */
  public static final int CLAIM_CUT_CHARS = 1_000;

  /**
   * The payload and headers of a claim with a budget, in the select list {@code list} of the table
   * under {@code alias} ("" for none), with the payload's stored size ({@code payload_bytes}). A
   * payload too large for any broker (over {@link #PAYLOAD_CUT_ABOVE_BYTES}) comes back cut to its
   * first {@link #CLAIM_CUT_CHARS} characters: the poller sees its size and takes it through the
   * claim check or dead-letters it, and the dead letter, copied in SQL, keeps the whole payload.
   * Where rows are bounded ({@code rowBounded}), so does a payload whose row holds more than {@link
   * #MAX_ROW_BYTES}, and headers over {@link #MAX_HEADERS_IN_ROW_BYTES} come back NULL with {@code
   * headers_bytes}: the claim never fails on one large row, and the store reads what was cut in
   * pieces ({@code PortablePayloads#complete}).
   */
  public static String sizedClaimColumns(String list, String alias, boolean rowBounded) {
    String dot = alias.isEmpty() ? "" : alias + ".";
    String payload = dot + "payload";
    String headers = dot + "headers";
    String cut =
        "octet_length("
            + payload
            + ") > "
            + PAYLOAD_CUT_ABOVE_BYTES
            + (rowBounded ? " OR " + messageBytes(alias) + " > " + MAX_ROW_BYTES : "");
    String columns =
        list.replace(
            payload + ",",
            "CASE WHEN "
                + cut
                + " THEN left("
                + payload
                + ", "
                + CLAIM_CUT_CHARS
                + ") ELSE "
                + payload
                + " END AS payload, octet_length("
                + payload
                + ") AS payload_bytes,");
    return rowBounded ? columns.replace(headers + ",", cutHeaders(headers) + ",") : columns;
  }

  /**
   * The {@code headers} column (qualified as needed) of a bounded read: NULL over {@link
   * #MAX_HEADERS_IN_ROW_BYTES}, with {@code headers_bytes}.
   */
  public static String cutHeaders(String headers) {
    return "CASE WHEN octet_length("
        + headers
        + ") > "
        + MAX_HEADERS_IN_ROW_BYTES
        + " THEN NULL ELSE "
        + headers
        + " END AS headers, octet_length("
        + headers
        + ") AS headers_bytes";
  }

  /**
   * The payload of a dead letter in a read where rows are bounded ({@code payload} qualified as
   * needed, {@code rowBytes} its row's size): its first {@link #DEAD_LETTER_CUT_CHARS} characters
   * when the row holds more than {@link #MAX_ROW_BYTES}.
   */
  public static String cutDeadLetterPayload(String payload, String rowBytes) {
    return "CASE WHEN "
        + rowBytes
        + " > "
        + MAX_ROW_BYTES
        + " THEN left("
        + payload
        + ", "
        + DEAD_LETTER_CUT_CHARS
        + ") ELSE "
        + payload
        + " END";
  }

  /**
   * A payload of more UTF-8 bytes than this comes back cut from a claim with a budget, and from a
   * dead-letter read: more than the 256 KiB SNS and SQS accept, it can never be published whole.
   */
  public static final int PAYLOAD_CUT_ABOVE_BYTES = MessageSize.MAX_BYTES;

  /**
   * How many characters of a payload cut for {@link #PAYLOAD_CUT_ABOVE_BYTES} a read returns: a
   * quarter of it, so at most 256 KiB whatever the characters (UTF-8 takes at most four bytes for
   * one). The cut is by characters, so it never splits one.
   */
  public static final int PAYLOAD_CUT_CHARS = PAYLOAD_CUT_ABOVE_BYTES / 4;

  /**
   * The {@code payload} column (qualified as needed) cut above {@link #PAYLOAD_CUT_ABOVE_BYTES}.
   */
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
