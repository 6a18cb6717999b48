package dev.lambdaoutbox.store.sql;

/** Work inside one transaction of a {@link SqlExecutor}. */
@FunctionalInterface
public interface SqlWork<T> {
  T run(SqlSession session);
}
