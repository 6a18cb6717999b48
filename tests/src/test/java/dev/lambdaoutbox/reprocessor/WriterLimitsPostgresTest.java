package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/** What the writer accepts at its limits, carried whole over JDBC against PostgreSQL. */
class WriterLimitsPostgresTest extends WriterLimitsContract {
  @Override
  Backend backend() {
    return Backend.POSTGRES_JDBC;
  }
}
