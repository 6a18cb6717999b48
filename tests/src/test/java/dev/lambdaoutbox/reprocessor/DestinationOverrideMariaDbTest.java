package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** The destination override's checks over JDBC against MariaDB. */
class DestinationOverrideMariaDbTest extends DestinationOverrideContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_JDBC;
  }
}
