package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** Failure groups and their re-drive over JDBC against PostgreSQL. */
class FailureGroupsPostgresTest extends FailureGroupsContract {
  @Override
  Backend backend() {
    return Backend.POSTGRES_JDBC;
  }
}
