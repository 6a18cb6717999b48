package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import java.util.List;

/**
 * A real executor whose sessions report a result budget, as the Data API's do: with it the dialects
 * take their sized paths (sizes first, rows in groups that fit) over JDBC. The MySQL Data API path
 * cannot run against an emulator, so its statements run this way against MariaDB.
 */
public record BudgetedExecutor(SqlExecutor executor, long maxResultBytes) implements SqlExecutor {
  @Override
  public SqlDialect dialect() {
    return executor.dialect();
  }

  @Override
  public <T> T inTransaction(String what, SqlWork<T> work) {
    return executor.inTransaction(what, s -> work.run(new Budgeted(s, maxResultBytes)));
  }

  @Override
  public SqlExecutor secondConnection() {
    return new BudgetedExecutor(executor.secondConnection(), maxResultBytes);
  }

  private record Budgeted(SqlSession session, long maxResultBytes) implements SqlSession {
    @Override
    public List<Row> query(String sql, Params params) {
      return session.query(sql, params);
    }

    @Override
    public int update(String sql, Params params) {
      return session.update(sql, params);
    }

    @Override
    public void batch(String sql, List<Params> parameterSets) {
      session.batch(sql, parameterSets);
    }
  }
}
