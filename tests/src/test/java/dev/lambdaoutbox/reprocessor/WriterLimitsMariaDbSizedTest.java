package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * What the writer accepts at its limits, carried whole over JDBC against MariaDB with the Data
 * API's result budget.
 */
class WriterLimitsMariaDbSizedTest extends WriterLimitsContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_DATA_API_BUDGET;
  }
}
