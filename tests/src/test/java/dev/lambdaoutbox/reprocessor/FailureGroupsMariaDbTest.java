package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** Failure groups and their re-drive over JDBC against MariaDB. */
class FailureGroupsMariaDbTest extends FailureGroupsContract {
  @Override
  Backend backend() {
    return Backend.MARIADB_JDBC;
  }
}
