package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * Failure groups and their re-drive over JDBC against MariaDB under the Data API's result budget.
 */
class FailureGroupsMariaDbSizedTest extends FailureGroupsContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_DATA_API_BUDGET;
  }
}
