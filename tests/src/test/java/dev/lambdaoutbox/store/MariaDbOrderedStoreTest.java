package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;
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

  /**
   * Holding back the rows behind heads that back off finds the heads by primary key and probes the
   * key index once per head, even where the statistics were taken while the table was empty.
   */
  @Test
  void holdBehind_withTheStatisticsOfAnEmptyTable_probesTheKeyIndexPerHead() throws Exception {
    List<UUID> heads;
    try (Connection c = database().open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.analyze();
      loader.pendingOverKeys(5_000, 100, T0);
      heads = firstIds(c, 10);
    }

    String plan = Stores.explainHoldBehind(database(), tables, heads);

    assertThat(plan)
        .contains("\"key\": \"PRIMARY\"")
        .contains("\"key\": \"" + tables.messages() + "_key_ix\"")
        .doesNotContain("\"access_type\": \"ALL\"");
  }

  /**
   * Holding back the window's rows that are due before their waiting heads walks the due index as
   * the claim does and finds each row's head along the key index, even where the statistics were
   * taken while the table was empty: the one full read is of the window itself.
   */
  @Test
  void holdBehindWaitingHeads_withTheStatisticsOfAnEmptyTable_walksTheWindowOnly()
      throws Exception {
    try (Connection c = database().open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.analyze();
      loader.pendingOverKeys(5_000, 100, T0);
    }

    String plan = Stores.explainHoldBehindWaitingHeads(database(), tables, T0.plusSeconds(1), 100);

    assertThat(plan)
        .contains("\"key\": \"" + tables.messages() + "_due_ix\"")
        .contains("\"key\": \"" + tables.messages() + "_key_ix\"")
        .contains("\"key\": \"PRIMARY\"")
        .contains("<derived2>");
    assertThat(plan.split("\"access_type\": \"ALL\"", -1)).hasSize(2);
  }
}
