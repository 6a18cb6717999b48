package dev.lambdaoutbox.store.internal;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.internal.dialect.ClockSql;
import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.internal.dialect.DestinationHealthSql;
import dev.lambdaoutbox.store.internal.dialect.ExplainSql;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.PurgeSql;
import dev.lambdaoutbox.store.internal.dialect.WaitingRowSql;
import dev.lambdaoutbox.store.internal.dialect.mysql.MysqlSql;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableSql;
import dev.lambdaoutbox.store.internal.dialect.postgres.PostgresSql;

/**
 * The statements of one SQL dialect over one set of tables, split by the client that runs them: the
 * poller's store ({@link #outbox}), destination health ({@link #health}), the retention purge
 * ({@link #purge}), the reprocessor's dead letters ({@link #deadLetters}) and waiting rows ({@link
 * #waiting}), and the database's clock ({@link #clock}). Each client is given only its part.
 */
public record StoreSql(
    OutboxSql outbox,
    DestinationHealthSql health,
    PurgeSql purge,
    DeadLetterSql deadLetters,
    WaitingRowSql waiting,
    ClockSql clock) {

  /** The statements of {@code dialect} over {@code tables} (prefix and schema as configured). */
  public static StoreSql of(SqlDialect dialect, OutboxTables tables) {
    PortableSql sql = implementation(dialect, tables);
    return new StoreSql(sql, sql, sql, sql, sql, sql);
  }

  /** The statements' plans, for tests and benchmarks ({@link ExplainSql}). */
  public static ExplainSql explain(SqlDialect dialect, OutboxTables tables) {
    return implementation(dialect, tables);
  }

  /** The dialect's one home of every statement, which implements each client's interface. */
  static PortableSql implementation(SqlDialect dialect, OutboxTables tables) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresSql(tables);
      case MYSQL -> new MysqlSql(tables);
    };
  }
}
