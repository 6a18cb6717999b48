package dev.lambdaoutbox.grants;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.GrantedUsers;
import dev.lambdaoutbox.testing.GrantedUsers.GrantedUser;
import dev.lambdaoutbox.writer.OutboxRole;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Least privilege with the tables in a schema of their own: the functions' users connect with the
 * database's plain URL, as the template's JdbcUrl gives it, and find the tables through the search
 * path their grants set; the application's writer names the schema in its URL ({@code
 * currentSchema}). The grants differ from {@link PostgresLeastPrivilegeTest}'s only in naming the
 * schema, so each is taken away there only.
 */
class PostgresSchemaLeastPrivilegeTest extends PostgresLeastPrivilegeTest {
  private final String schema =
      "grants_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);

  @Override
  String schema() {
    return schema;
  }

  @Override
  SqlExecutor executor(GrantedUser user, GrantedUsers users, List<AutoCloseable> closing) {
    JdbcConnectionProvider connections =
        Stores.connections(database().as(user.name(), user.password()), tables);
    closing.add(connections);
    return JdbcExecutor.of(connections);
  }

  @Override
  boolean takesEachGrantAway() {
    return false;
  }

  @Test
  void withoutUsageOnTheSchema_theWorkFailsNamingTheTableAndUsage() {
    GrantedUser poller = users.create(OutboxRole.POLLER);
    users.revokeUsage(poller);
    try {
      assertThatThrownBy(() -> drills.poller(as(poller)))
          .hasMessageContaining(tables.messages())
          .hasMessageContaining("USAGE");
    } finally {
      users.grantUsage(poller);
    }
  }
}
