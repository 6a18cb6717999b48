package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.WaitingRowSql.WaitingCount;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The statements over the outbox rows that wait for a destination that is down ({@code waiting_for}
 * is the destination's key), the same in every dialect apart from how a time is written: counted
 * and listed along the waiting index from one destination, locked and moved by an operator.
 */
public final class PortableWaiting {
  /** The columns a {@link WaitingRow} is read from. */
  private static final List<String> COLUMNS =
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

  private final SqlTemplate sql;
  private final String select;
  private final String retarget;
  private final String lease;

  public PortableWaiting(SqlTemplate sql) {
    this.sql = sql;
    // A row under a live lease is a poller's (its probe, or its publish): left to it.
    this.select =
        sql.fill(
            """
            SELECT {columns} FROM {messages}
            WHERE waiting_for = :key AND status = 'PENDING' AND waiting_for IS NOT NULL
              AND (locked_by IS NULL OR locked_until <= {at:now})
            ORDER BY created_at, id LIMIT :limit
            """,
            "columns",
            sql.syntax().selectList("", COLUMNS));
    this.retarget =
        sql.fill(
            """
            UPDATE {messages}
            SET destination = :destination, waiting_for = NULL, next_attempt_at = {at:now},
              locked_by = NULL, locked_until = NULL
            WHERE status = 'PENDING' AND id IN
            """);
    // Leased as a claim would, so that the statements that move a claimed row to the dead letters
    // move them.
    this.lease =
        sql.fill(
            """
            UPDATE {messages}
            SET locked_by = :owner, locked_until = {at:until}, next_attempt_at = {at:until}
            WHERE status = 'PENDING' AND id IN
            """);
  }

  /**
   * How many rows wait for the destination with key {@code key} among those {@code filter} matches
   * (event type, aggregate, and as error code the one the poller recorded when it deferred the
   * row), counted along the waiting index no further than {@code cap}, and when the oldest of them
   * was written.
   */
  public WaitingCount count(SqlSession s, String key, DeadLetterFilter filter, int cap) {
    Params params = Params.of().text("key", key).integer("cap", cap);
    StringBuilder where = new StringBuilder(WAITING_FOR_KEY);
    criterion(where, params, "event_type", "eventType", filter.eventType());
    criterion(where, params, "aggregate_type", "aggregateType", filter.aggregateType());
    criterion(where, params, "aggregate_id", "aggregateId", filter.aggregateId());
    criterion(where, params, "last_error_code", "errorCode", filter.errorCode());
    String count =
        sql.fill(
            """
            SELECT count(*) AS row_count, {utc:MIN(created_at)} AS oldest_created_at
            FROM (SELECT created_at FROM {messages}{where} ORDER BY created_at LIMIT :cap) w
            """,
            "where",
            where);
    Row row = s.query(count, params).get(0);
    return new WaitingCount(row.longValue("row_count"), row.instant("oldest_created_at"));
  }

  /**
   * Up to {@code limit} rows waiting for {@code key}, oldest first, but those under a live lease at
   * {@code now}; with {@code lock}, locked, skipping rows another transaction holds.
   */
  public List<WaitingRow> select(SqlSession s, String key, Instant now, int limit, boolean lock) {
    Params params = Params.of().text("key", key).timestamp("now", now).integer("limit", limit);
    return s.query(select + (lock ? " FOR UPDATE SKIP LOCKED" : ""), params).stream()
        .map(PortableWaiting::read)
        .toList();
  }

  /** Sends {@code ids} to {@code destination}, due at {@code now}, waiting for nothing. */
  public int retarget(SqlSession s, Collection<UUID> ids, String destination, Instant now) {
    Params params = Params.of().text("destination", destination).timestamp("now", now);
    return s.update(retarget + " " + InLists.uuids("id", ids, params), params);
  }

  /** Leases {@code ids} to {@code owner} until {@code until}, as a claim would. */
  public void lease(SqlSession s, Collection<UUID> ids, String owner, Instant until) {
    Params params = Params.of().text("owner", owner).timestamp("until", until);
    s.update(lease + " " + InLists.uuids("id", ids, params), params);
  }

  private static WaitingRow read(Row row) {
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

  /** {@code AND column = :name} when {@code value} is given, its value into {@code params}. */
  static void criterion(
      StringBuilder where, Params params, String column, String name, String value) {
    if (value != null) {
      where.append(" AND ").append(column).append(" = :").append(name);
      params.text(name, value);
    }
  }
}
