package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * The destination override's checks over the RDS Data API against PostgreSQL (the test bed's
 * emulator).
 */
class DestinationOverrideDataApiTest extends DestinationOverrideContract {
  @Override
  Backend backend() {
    return Backend.DATA_API;
  }
}
