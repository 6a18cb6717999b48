package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerPipelineContract} on the test bed's MariaDB. */
class PollerPipelineMariaDbTest extends PollerPipelineContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  String blockedSessionsSql(String table) {
    // The recording locks the rows it retries first (SELECT ... FOR UPDATE), and waits there;
    // claims skip locked rows and never wait.
    return "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()"
        + " AND COMMAND = 'Query' AND TIME >= 1 AND INFO LIKE 'SELECT id FROM "
        + table
        + " WHERE locked_by = %FOR UPDATE'";
  }

  @Override
  String killSql(long id) {
    return "KILL " + id;
  }
}
