package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.Backend;

/**
 * Failure groups and their re-drive over the RDS Data API against PostgreSQL (the test bed's
 * emulator).
 */
class FailureGroupsDataApiTest extends FailureGroupsContract {
  @Override
  Backend backend() {
    return Backend.DATA_API;
  }
}
