package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** What the writer accepts at its limits, carried whole over JDBC against MariaDB. */
class WriterLimitsMariaDbTest extends WriterLimitsContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_JDBC;
  }
}
