package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.PrivateServer;
import dev.lambdaoutbox.testing.PrivateServers;
import dev.lambdaoutbox.testing.TestDatabase;

/** {@link PollerDatabaseRestartContract} on a private MariaDB. */
class PollerMariaDbRestartTest extends PollerDatabaseRestartContract {
  @Override
  PrivateServer<TestDatabase> startDatabase() {
    return PrivateServers.mariadb();
  }

  @Override
  int events() {
    return 600;
  }
}
