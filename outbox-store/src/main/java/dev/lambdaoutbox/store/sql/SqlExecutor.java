package dev.lambdaoutbox.store.sql;

import dev.lambdaoutbox.core.SqlDialect;

/**
 * Runs work in one database transaction and commits it; on failure rolls it back and throws an
 * {@link dev.lambdaoutbox.store.model.OutboxStoreException} whose message starts "could not {@code
 * what}". A transaction the database chose as a deadlock victim (or failed for serialization) was
 * rolled back whole and is run again, up to {@link #DEADLOCK_ATTEMPTS} times in all, so the work
 * must read everything it decides on inside the transaction.
 */
public interface SqlExecutor {
  /** Runs of one piece of work when the database keeps choosing it as the deadlock victim. */
  int DEADLOCK_ATTEMPTS = 5;

  /** The SQL dialect of the database behind this executor. */
  SqlDialect dialect();

  /**
   * Runs {@code work} in a transaction and commits it.
   *
   * @param what what the work does, for the error message: "could not {@code what}"
   */
  <T> T inTransaction(String what, SqlWork<T> work);

  /**
   * An executor of the same database whose work may run at the same time as this one's, from
   * another thread. One that can already do that (the Data API's: every call its own request)
   * returns itself, as does this default; over JDBC it runs on a second connection ({@link
   * dev.lambdaoutbox.store.jdbc.JdbcExecutor#secondConnection()}).
   */
  default SqlExecutor secondConnection() {
    return this;
  }
}
