package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.PrivateServer;
import dev.lambdaoutbox.testing.PrivateServers;
import dev.lambdaoutbox.testing.TestDatabase;

/** {@link PollerDatabaseRestartContract} on a private PostgreSQL. */
class PollerPostgresRestartTest extends PollerDatabaseRestartContract {
  @Override
  PrivateServer<TestDatabase> startDatabase() {
    return PrivateServers.postgres();
  }

  @Override
  int events() {
    return 1_000;
  }
}
