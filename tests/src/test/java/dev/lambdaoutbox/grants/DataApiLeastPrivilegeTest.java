package dev.lambdaoutbox.grants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.GrantedUsers;
import dev.lambdaoutbox.testing.GrantedUsers.GrantedUser;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxRole;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * Least privilege over the RDS Data API (the test bed's emulator, over its PostgreSQL): the
 * functions' users log in through their secrets, as the Data API reads them; the application's
 * writer uses JDBC, as it always does. The statements are JDBC's (sized to one response), so each
 * grant is taken away in {@link PostgresLeastPrivilegeTest} only.
 */
class DataApiLeastPrivilegeTest extends LeastPrivilegeContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor executor(GrantedUser user, GrantedUsers users, List<AutoCloseable> closing) {
    DataApiEndpoint dataApi = TestEndpoints.dataApi();
    RdsDataClient client = dataApi.client();
    closing.add(client);
    return dataApi.executor(client).secretArn(users.secretArn(user)).build();
  }

  @Override
  boolean takesEachGrantAway() {
    return false;
  }

  /** Without it, every test here would pass as the emulator's own all-powerful user. */
  @Test
  void theEmulator_logsInAsTheUserOfTheSecret() {
    GrantedUser poller = users.create(OutboxRole.POLLER);

    String user =
        as(poller)
            .inTransaction(
                "read the login",
                s -> s.query("SELECT current_user AS who", Params.none()).get(0).text("who"));

    assertThat(user).isEqualTo(poller.name());
  }
}
