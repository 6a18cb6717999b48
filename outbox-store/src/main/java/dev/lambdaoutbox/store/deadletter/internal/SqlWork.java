package dev.lambdaoutbox.store.deadletter.internal;

import java.sql.Connection;
import java.sql.SQLException;

/** A unit of JDBC work on a connection, run by {@link Transactions}. */
@FunctionalInterface
public interface SqlWork<T> {
  T run(Connection connection) throws SQLException;
}
