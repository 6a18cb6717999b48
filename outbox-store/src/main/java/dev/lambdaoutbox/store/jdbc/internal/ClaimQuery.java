package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * How due rows are claimed: the oldest due PENDING rows ({@code next_attempt_at <= now}, in {@code
 * next_attempt_at, id} order, along the due index), skipping rows another transaction holds locked,
 * are stamped with the lease ({@code locked_by}, {@code locked_until}, and {@code next_attempt_at}
 * = the lease end, so they stop being due until the lease runs out) and returned in that order. The
 * caller commits.
 */
public interface ClaimQuery {
  List<OutboxMessage> claim(
      Connection connection, String owner, int limit, Instant now, Instant leaseEnd)
      throws SQLException;

  /** The SQL that finds the rows, for EXPLAIN in tests and benchmarks. */
  String selectSql();

  static ClaimQuery of(SqlDialect dialect, OutboxTables tables) {
    return dialect == SqlDialect.POSTGRESQL
        ? new PostgresClaimQuery(tables)
        : new MysqlClaimQuery(tables);
  }
}
