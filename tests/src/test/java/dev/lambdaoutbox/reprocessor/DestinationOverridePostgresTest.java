package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** The destination override's checks over JDBC against PostgreSQL. */
class DestinationOverridePostgresTest extends DestinationOverrideContract {
  @Override
  Backend backend() {
    return Backend.POSTGRES_JDBC;
  }
}
