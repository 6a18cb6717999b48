package dev.lambdaoutbox.store.internal.rows;

import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** The dead-letter table's columns, and a row of them read back as a {@link DeadLetter}. */
public final class DeadLetterRows {
  /** Every column, in the order a dead letter is written. */
  public static final List<String> COLUMNS =
      List.of(
          "id",
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "payload",
          "headers",
          "destination",
          "idempotency_key",
          "occurred_at",
          "created_at",
          "attempts",
          "replay_count",
          "error_code",
          "error_reason",
          "first_failed_at",
          "last_failed_at",
          "dead_at");

  /**
   * The failure group's columns, which only the poller's move and the backfill write (a reprocessor
   * reads them by name): the fingerprint and the masked reason.
   */
  public static final List<String> FAILURE_GROUP_COLUMNS =
      List.of("failure_fingerprint", "failure_reason_masked");

  /** The columns a move from the outbox writes: {@link #COLUMNS}, then the failure group's. */
  public static final String MOVED_COLUMNS =
      String.join(", ", COLUMNS) + ", " + String.join(", ", FAILURE_GROUP_COLUMNS);

  /** The columns a dead letter carries over unchanged from its outbox row. */
  public static final List<String> CARRIED = COLUMNS.subList(0, COLUMNS.indexOf("attempts"));

  /**
   * The dead-letter table's values for rows moved from the outbox: the carried columns of the row
   * (a time the stores could not read back replaced by {@code now}: an unreadable row's text is in
   * its reason), then attempts, replay count, error, first and last failure, death; then the
   * failure group ({@link #MOVED_COLUMNS}): the reason masked in Java ({@code masked}), hashed in
   * the move's own statement with the row's event type and destination, as {@link
   * dev.lambdaoutbox.store.model.deadletter.FailureFingerprint#of} does (md5 of the parts joined by
   * {@code |}, the same bytes in both dialects).
   *
   * @param deadId the expression of the dead letter's id
   * @param tries the expression added to the row's retry count to give its attempts
   * @param readableTime a time column as the dead-letter table takes it
   */
  public static String movedValues(
      String deadId,
      String tries,
      String code,
      String reason,
      String masked,
      String now,
      UnaryOperator<String> readableTime) {
    List<String> values = new ArrayList<>();
    values.add(deadId);
    for (String column : CARRIED.subList(1, CARRIED.size())) {
      values.add(column.endsWith("_at") ? readableTime.apply(column) : column);
    }
    values.add("retry_count + " + tries);
    values.add("replay_count");
    values.add(code);
    values.add(reason);
    values.add(readableTime.apply("first_failed_at"));
    values.add(now);
    values.add(now);
    values.add(
        "md5(concat("
            + code
            + ", '|', "
            + masked
            + ", '|', event_type, '|', coalesce(destination, '')))");
    values.add(masked);
    return String.join(", ", values);
  }

  private DeadLetterRows() {}

  /**
   * The select list of every column, the payload cut to its first {@code :preview} characters, plus
   * its full length as {@code payload_length}.
   */
  public static String previewList(String selectList) {
    return selectList.replace(
        "payload,",
        "substr(payload, 1, :preview) AS payload, char_length(payload) AS payload_length,");
  }

  public static DeadLetter read(Row row) {
    return new DeadLetter(
        row.uuid("id"),
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.text("event_type"),
        row.text("payload"),
        row.text("headers"),
        row.text("destination"),
        row.text("idempotency_key"),
        row.instant("occurred_at"),
        row.instant("created_at"),
        row.integer("attempts"),
        row.integer("replay_count"),
        row.text("error_code"),
        row.text("error_reason"),
        row.instant("first_failed_at"),
        row.instant("last_failed_at"),
        row.instant("dead_at"));
  }

  public static List<DeadLetter> readAll(List<Row> rows) {
    return rows.stream().map(DeadLetterRows::read).toList();
  }

  /**
   * A replay's INSERT, copied in SQL from the dead letter {@code :id} (its payload, of any size,
   * never read by the function): the same event, {@code {destination}} (the column, or the override
   * {@code :destination}), retry count 0, replay count one higher, created {@code :now}, due {@code
   * :due} (now, or a re-drive's paced time; {@link DueTimes}), in the re-drive's group {@code
   * :redriveGroup} or none. Each dialect says how a clash is told.
   */
  public static final String REINSERT =
      """
      INSERT INTO {messages}
        (id, aggregate_type, aggregate_id, event_type, payload, headers, destination,
         idempotency_key, occurred_at, created_at, status, retry_count, replay_count,
         next_attempt_at, locked_by, locked_until, last_error_code, last_error_reason,
         first_failed_at, sent_at, not_before, redrive_group)
      SELECT id, aggregate_type, aggregate_id, event_type, payload, headers, {destination},
        idempotency_key, occurred_at, {at:now}, 'PENDING', 0, replay_count + 1, {at:due},
        NULL, NULL, NULL, NULL, NULL, NULL, {at:due}, :redriveGroup
      FROM {deadLetters} WHERE id = :id
      """;

  /**
   * The parameters of {@link #REINSERT}: the dead letter's id, {@code now}, when it is due, the
   * re-drive's group (or null), the override.
   */
  public static Params reinsertParams(
      DeadLetter row, String destinationOverride, Instant now, Instant due, String redriveGroup) {
    Params params =
        Params.of()
            .uuid("id", row.id())
            .timestamp("now", now)
            .timestamp("due", due)
            .text("redriveGroup", redriveGroup);
    return destinationOverride == null ? params : params.text("destination", destinationOverride);
  }

  public static DeadLetterPage.Entry readPreview(Row row) {
    return new DeadLetterPage.Entry(read(row), row.integer("payload_length"));
  }
}
