package dev.lambdaoutbox.grants;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.GrantedUsers;
import dev.lambdaoutbox.testing.GrantedUsers.GrantedUser;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.util.List;

class PostgresLeastPrivilegeTest extends LeastPrivilegeContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor executor(GrantedUser user, GrantedUsers users, List<AutoCloseable> closing) {
    JdbcConnectionProvider connections = Stores.connections(user.db(), tables);
    closing.add(connections);
    return JdbcExecutor.of(connections);
  }
}
