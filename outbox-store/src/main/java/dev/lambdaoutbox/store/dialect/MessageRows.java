package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.writer.internal.JsonSupport;
import java.util.List;

/** The outbox columns a claim returns, and how a row of them becomes an {@link OutboxMessage}. */
final class MessageRows {
  /** The columns {@link #read} needs. */
  static final List<String> COLUMNS =
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
          "retry_count",
          "replay_count",
          "first_failed_at");

  private MessageRows() {}

  static OutboxMessage read(Row row) {
    return new OutboxMessage(
        row.uuid("id"),
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.text("event_type"),
        row.text("payload"),
        JsonSupport.decodeHeaders(row.text("headers")),
        row.text("destination"),
        row.text("idempotency_key"),
        row.instant("occurred_at"),
        row.instant("created_at"),
        row.integer("retry_count"),
        row.integer("replay_count"),
        row.instant("first_failed_at"));
  }
}
