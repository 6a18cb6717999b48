package dev.lambdaoutbox.store.internal.rows;

import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.sql.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The outbox columns a claim returns, and how each row of them is read, on its own: into an {@link
 * OutboxMessage}, or, when a column breaks a rule the writer enforces (the writer's own {@link
 * EventRules}) or cannot be read at all, into an {@link UnreadableRow} naming the column.
 */
public final class MessageRows {
  /** The columns {@link #read} needs. */
  public static final List<String> COLUMNS =
      Stream.concat(
              OutboxTables.EVENT_COLUMNS.stream(),
              Stream.of(
                  "created_at", "retry_count", "replay_count", "first_failed_at", "rewind_of"))
          .toList();

  /** A UUID as the outbox writes one: 36 characters, hex digits in 8-4-4-4-12 groups. */
  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");

  private MessageRows() {}

  /**
   * The rows of one claim, each read on its own.
   *
   * @param stoppedAtBudget a claim bounded by bytes locked more due rows ({@code due_rows}, a
   *     column of its rows) than it returned
   */
  public record Read(
      List<OutboxMessage> messages, List<UnreadableRow> unreadable, boolean stoppedAtBudget) {}

  public static Read readAll(List<Row> rows) {
    boolean stoppedAtBudget =
        !rows.isEmpty()
            && rows.get(0).has("due_rows")
            && rows.get(0).longValue("due_rows") > rows.size();
    List<OutboxMessage> messages = new ArrayList<>(rows.size());
    List<UnreadableRow> unreadable = new ArrayList<>(0);
    for (Row row : rows) {
      try {
        messages.add(read(row));
      } catch (Unreadable e) {
        unreadable.add(e.row);
      }
    }
    return new Read(messages, unreadable, stoppedAtBudget);
  }

  /** The row as a message; an {@link Unreadable} naming the first column that is not fit. */
  public static OutboxMessage read(Row row) {
    String rawId = row.text("id");
    UUID id = uuid(rawId);
    if (id == null) {
      throw new Unreadable(
          rawId,
          UuidV7.generate(),
          "id",
          "holds '" + rawId + "', which is not a UUID; the dead letter has a new id");
    }
    String aggregateType = name(row, id, "aggregate_type");
    String aggregateId = name(row, id, "aggregate_id");
    String eventType = name(row, id, "event_type");
    String payload = row.text("payload");
    // A claim bounded by bytes says how large the payload is as stored (it returns a payload too
    // large for any broker cut, see ResultBudget.cutPayload); the whole payload is its own size.
    long payloadBytes =
        row.has("payload_bytes") && row.text("payload_bytes") != null
            ? row.longValue("payload_bytes")
            : Utf8.length(payload == null ? "" : payload);
    // A payload larger than any message SNS and SQS accept is not parsed: the poller dead-letters
    // the row as too large, its stored payload copied whole.
    String payloadProblem =
        payloadBytes > MessageSize.MAX_BYTES ? null : EventRules.problemWithPayload(payload);
    if (payloadProblem != null) {
      throw new Unreadable(rawId, id, "payload", payloadProblem);
    }
    Map<String, String> headers = headers(row, id);
    return new OutboxMessage(
        id,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        row.text("destination"),
        row.text("idempotency_key"),
        time(row, id, "occurred_at"),
        time(row, id, "created_at"),
        row.integer("retry_count"),
        row.integer("replay_count"),
        time(row, id, "first_failed_at"),
        payloadBytes,
        uuid(row.text("rewind_of")));
  }

  /** The id, when {@code text} is a UUID written out in full; null otherwise. */
  public static UUID uuid(String text) {
    return text != null && UUID_TEXT.matcher(text).matches() ? UUID.fromString(text) : null;
  }

  private static String name(Row row, UUID id, String column) {
    String value = row.text(column);
    String problem = EventRules.problemWithName(value);
    if (problem != null) {
      throw new Unreadable(row.text("id"), id, column, problem);
    }
    return value;
  }

  private static Map<String, String> headers(Row row, UUID id) {
    Map<String, String> headers;
    try {
      headers = JsonSupport.decodeHeaders(row.text("headers"));
    } catch (IllegalArgumentException e) {
      throw new Unreadable(row.text("id"), id, "headers", e.getMessage());
    }
    EventRules.FieldProblem problem = EventRules.problemWithHeaders(headers);
    if (problem != null) {
      String what =
          problem.field().equals("headers")
              ? problem.problem()
              : "holds "
                  + problem.field().replaceFirst("^headers\\.", "the header '")
                  + "', which SNS/SQS would refuse: "
                  + problem.problem();
      throw new Unreadable(row.text("id"), id, "headers", what);
    }
    return headers;
  }

  private static Instant time(Row row, UUID id, String column) {
    try {
      return row.instant(column);
    } catch (IllegalStateException e) {
      throw new Unreadable(
          row.text("id"),
          id,
          column,
          "holds '"
              + row.text(column)
              + "', which is not a time; the dead letter has the time it died instead");
    }
  }

  /** A row found unfit while reading it. */
  private static final class Unreadable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final transient UnreadableRow row;

    Unreadable(String rawId, UUID deadLetterId, String column, String problem) {
      super(column, null, false, false);
      this.row =
          new UnreadableRow(rawId, deadLetterId, column, "the " + column + " column " + problem);
    }
  }
}
