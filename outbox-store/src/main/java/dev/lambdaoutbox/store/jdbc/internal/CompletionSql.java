package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.DeliveryOutcome.Retry;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The statements that record outcomes, one set per dialect; each returns how many rows it changed.
 * All run in the caller's transaction and touch only rows still PENDING.
 */
interface CompletionSql {
  /** The columns a dead letter carries over unchanged from its outbox row. */
  String CARRIED =
      "id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
          + " idempotency_key, occurred_at, created_at";

  /** The dead-letter columns, in the order the INSERTs fill them. */
  String DEAD_LETTER_COLUMNS =
      CARRIED
          + ", attempts, replay_count, error_code, error_reason, first_failed_at, last_failed_at,"
          + " dead_at";

  /**
   * Deletes the rows, or with {@code retain} marks them SENT at {@code now}, whoever holds them.
   */
  int published(Connection c, List<UUID> ids, Instant now, boolean retain) throws SQLException;

  /** Counts a failed attempt on each row {@code owner} still holds and makes it due again. */
  int retried(Connection c, String owner, List<Retry> retries, Instant now) throws SQLException;

  /**
   * Moves each row {@code owner} still holds to the dead-letter table. A dead letter already there
   * under the same id (a replayed row that failed again) is replaced by the new one.
   */
  int deadLettered(Connection c, String owner, List<DeadLetter> deadLetters, Instant now)
      throws SQLException;

  static CompletionSql of(SqlDialect dialect, OutboxTables tables) {
    return dialect == SqlDialect.POSTGRESQL
        ? new PostgresCompletionSql(tables)
        : new MysqlCompletionSql(tables);
  }
}
