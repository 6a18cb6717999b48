package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * Rows waiting for a missing destination, seen and moved over JDBC against MariaDB with the Data
 * API's result budget.
 */
class WaitingRowsMariaDbSizedTest extends WaitingRowsContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_DATA_API_BUDGET;
  }
}
