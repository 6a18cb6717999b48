package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerPipelineContract} on the test bed's PostgreSQL. */
class PollerPipelinePostgresTest extends PollerPipelineContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  String blockedSessionsSql(String table) {
    return "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        + " AND pid <> pg_backend_pid() AND query LIKE '%"
        + table
        + "%'";
  }

  @Override
  String killSql(long id) {
    return "SELECT pg_terminate_backend(" + id + ")";
  }
}
