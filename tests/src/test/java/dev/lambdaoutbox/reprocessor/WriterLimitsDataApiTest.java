package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * What the writer accepts at its limits, carried whole over the RDS Data API against PostgreSQL
 * (the test bed's emulator).
 */
class WriterLimitsDataApiTest extends WriterLimitsContract {
  @Override
  Backend backend() {
    return Backend.DATA_API;
  }
}
