package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real executor that records every statement its sessions run: how long it took and how many rows
 * it updated or returned, so a test can show that no statement grew with the data. The sessions are
 * the executor's own (a Data API session keeps its result budget).
 */
public final class StatementLog implements SqlExecutor {
  /** One statement run: its text, its wall time, and the rows it updated or returned. */
  public record Statement(String sql, long millis, int rows, boolean update) {}

  private final SqlExecutor executor;
  private final List<Statement> statements;

  public StatementLog(SqlExecutor executor) {
    this(executor, Collections.synchronizedList(new ArrayList<>()));
  }

  private StatementLog(SqlExecutor executor, List<Statement> statements) {
    this.executor = executor;
    this.statements = statements;
  }

  /** The statements run so far, in order. */
  public List<Statement> statements() {
    synchronized (statements) {
      return List.copyOf(statements);
    }
  }

  public void clear() {
    statements.clear();
  }

  @Override
  public SqlDialect dialect() {
    return executor.dialect();
  }

  @Override
  public <T> T inTransaction(String what, SqlWork<T> work) {
    return executor.inTransaction(what, s -> work.run(new Logged(s, statements)));
  }

  @Override
  public SqlExecutor secondConnection() {
    return new StatementLog(executor.secondConnection(), statements);
  }

  private record Logged(SqlSession session, List<Statement> statements) implements SqlSession {
    @Override
    public List<Row> query(String sql, Params params) {
      long start = System.nanoTime();
      List<Row> rows = session.query(sql, params);
      statements.add(new Statement(sql, since(start), rows.size(), false));
      return rows;
    }

    @Override
    public int update(String sql, Params params) {
      long start = System.nanoTime();
      int rows = session.update(sql, params);
      statements.add(new Statement(sql, since(start), rows, true));
      return rows;
    }

    @Override
    public void batch(String sql, List<Params> parameterSets) {
      long start = System.nanoTime();
      session.batch(sql, parameterSets);
      statements.add(new Statement(sql, since(start), parameterSets.size(), true));
    }

    @Override
    public long maxResultBytes() {
      return session.maxResultBytes();
    }

    @Override
    public long maxRowBytes() {
      return session.maxRowBytes();
    }

    private static long since(long start) {
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
  }
}
