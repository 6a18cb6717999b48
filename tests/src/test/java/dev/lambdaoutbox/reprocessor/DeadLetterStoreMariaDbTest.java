package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** The dead-letter store contract over JDBC against MariaDB. */
class DeadLetterStoreMariaDbTest extends DeadLetterStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return JdbcExecutor.of(closeAfterEach(Stores.connections(database(), tables())));
  }
}
