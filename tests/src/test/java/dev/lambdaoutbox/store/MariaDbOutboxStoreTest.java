package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** The store contract over JDBC against MariaDB, and the claim plan there. */
class MariaDbOutboxStoreTest extends JdbcOutboxStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  String sessionIdSql() {
    return "SELECT CONNECTION_ID()";
  }

  @Override
  String killSessionSql(long sessionId) {
    return "KILL " + sessionId;
  }

  @Test
  void claimAndBacklogQueries_withLongHistory_useTheirIndexes() throws Exception {
    try (Connection c = database().open()) {
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sent(100_000, T0);
      loader.pending(1_000, T0);
      loader.analyze();

      String plan = Stores.explainClaim(database(), tables, T0.plusSeconds(1), 500);

      assertThat(plan).contains(tables.messages() + "_due_ix");
      assertThat(plan).doesNotContain("\"access_type\": \"ALL\"");

      // The metrics' query: MIN(created_at) of the PENDING rows is read off the unpublished index
      // without touching the table.
      String backlog = Stores.explainBacklog(database(), tables, T0.plusSeconds(1));
      assertThat(backlog)
          .contains("Select tables optimized away")
          .doesNotContain("\"table_name\": \"" + tables.messages() + "\"");
    }
  }
}
