package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

class MariaDbOrderedStoreTest extends OrderedStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }

  @Test
  void orderedClaim_withALargeBacklogOverFewKeys_walksTheDueIndex_probingTheKeyIndex()
      throws Exception {
    try (Connection c = database().open()) {
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sent(50_000, T0);
      loader.pendingOverKeys(100_000, 100, T0);
      loader.analyze();

      String plan = Stores.explainClaimHeads(database(), tables, T0.plusSeconds(1), 100);

      // The window comes off the due index in order; the head check is one dive into the key
      // index; the heads are locked by primary key. The one full read is of the window itself (at
      // most four rows per row claimed), never of the outbox table.
      assertThat(plan)
          .contains("\"key\": \"" + tables.messages() + "_due_ix\"")
          .contains("\"key\": \"" + tables.messages() + "_key_ix\"")
          .contains("\"key\": \"PRIMARY\"");
      assertThat(plan.split("\"access_type\": \"ALL\"", -1)).hasSize(2);
      assertThat(plan).contains("<derived2>");
    }
  }
}
