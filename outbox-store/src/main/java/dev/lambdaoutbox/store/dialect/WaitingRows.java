package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.waiting.WaitingRow;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The statements over the outbox rows that wait for a destination that is down ({@code waiting_for}
 * is the destination's key), the same in every dialect apart from how a time is written: counted
 * and listed along the waiting index from one destination, locked and moved by an operator.
 */
final class WaitingRows {
  /** The columns a {@link WaitingRow} is read from. */
  static final List<String> COLUMNS =
      List.of(
          "id",
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "destination",
          "last_error_code",
          "last_error_reason",
          "retry_count",
          "created_at");

  /** The rows that wait for {@code :key}: PENDING, along the waiting index. */
  private static final String WAITING_FOR_KEY =
      " WHERE waiting_for = :key AND status = 'PENDING' AND waiting_for IS NOT NULL";

  private final String table;
  private final Syntax syntax;
  private final String select;

  WaitingRows(String table, Syntax syntax) {
    this.table = table;
    this.syntax = syntax;
    // A row under a live lease is a poller's (its probe, or its publish): left to it.
    this.select =
        "SELECT "
            + syntax.selectList("", COLUMNS)
            + " FROM "
            + table
            + WAITING_FOR_KEY
            + " AND (locked_by IS NULL OR locked_until <= "
            + syntax.timestampParam().apply("now")
            + ") ORDER BY created_at, id LIMIT :limit";
  }

  /**
   * How many rows wait for {@code :key} among those {@code filter} matches, counted no further than
   * {@code :cap}, and the oldest one's creation time ({@code row_count}, {@code
   * oldest_created_at}). The filter's error code is the one the poller recorded when it deferred
   * the row; its event type and aggregate are the row's.
   */
  String count(DeadLetterFilter filter, Params params) {
    StringBuilder where = new StringBuilder(WAITING_FOR_KEY);
    criterion(where, params, "event_type", "eventType", filter.eventType());
    criterion(where, params, "aggregate_type", "aggregateType", filter.aggregateType());
    criterion(where, params, "aggregate_id", "aggregateId", filter.aggregateId());
    criterion(where, params, "last_error_code", "errorCode", filter.errorCode());
    return "SELECT count(*) AS row_count, "
        + syntax.utcText().apply("MIN(created_at)")
        + " AS oldest_created_at FROM (SELECT created_at FROM "
        + table
        + where
        + " ORDER BY created_at LIMIT :cap) w";
  }

  /**
   * Up to {@code :limit} rows waiting for {@code :key}, oldest first, but those under a live lease
   * at {@code :now}; with {@code lock}, locked, skipping rows another transaction holds.
   */
  String select(boolean lock) {
    return select + (lock ? " FOR UPDATE SKIP LOCKED" : "");
  }

  /** Sends {@code ids} to {@code :destination}, due at {@code :now}, waiting for nothing. */
  String retarget(Collection<UUID> ids, Params params) {
    return "UPDATE "
        + table
        + " SET destination = :destination, waiting_for = NULL, next_attempt_at = "
        + syntax.timestampParam().apply("now")
        + ", locked_by = NULL, locked_until = NULL WHERE status = 'PENDING' AND id IN "
        + InLists.uuids("id", ids, params);
  }

  /**
   * Leases {@code ids} to {@code :owner} until {@code :until}, as a claim would, so that the
   * statements that move a claimed row to the dead letters move them.
   */
  String lease(Collection<UUID> ids, Params params) {
    String until = syntax.timestampParam().apply("until");
    return "UPDATE "
        + table
        + " SET locked_by = :owner, locked_until = "
        + until
        + ", next_attempt_at = "
        + until
        + " WHERE status = 'PENDING' AND id IN "
        + InLists.uuids("id", ids, params);
  }

  static Params selectParams(String key, Instant now, int limit) {
    return Params.of().text("key", key).timestamp("now", now).integer("limit", limit);
  }

  static WaitingRow read(Row row) {
    return new WaitingRow(
        row.uuid("id"),
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.text("event_type"),
        row.text("destination"),
        row.text("last_error_code"),
        row.text("last_error_reason"),
        row.integer("retry_count"),
        row.instant("created_at"));
  }

  private static void criterion(
      StringBuilder where, Params params, String column, String name, String value) {
    if (value != null) {
      where.append(" AND ").append(column).append(" = :").append(name);
      params.text(name, value);
    }
  }
}
