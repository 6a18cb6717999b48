package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** Rows waiting for a missing destination, seen and moved over JDBC against PostgreSQL. */
class WaitingRowsPostgresTest extends WaitingRowsContract {
  @Override
  Backend backend() {
    return Backend.POSTGRES_JDBC;
  }
}
