package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * Rows waiting for a missing destination, seen and moved over the RDS Data API against PostgreSQL
 * (the test bed's emulator).
 */
class WaitingRowsDataApiTest extends WaitingRowsContract {
  @Override
  Backend backend() {
    return Backend.DATA_API;
  }
}
