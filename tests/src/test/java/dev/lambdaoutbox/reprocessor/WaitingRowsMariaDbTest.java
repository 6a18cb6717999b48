package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** Rows waiting for a missing destination, seen and moved over JDBC against MariaDB. */
class WaitingRowsMariaDbTest extends WaitingRowsContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_JDBC;
  }
}
