package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

class PostgresOrderedStoreTest extends OrderedStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
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

      assertThat(plan)
          .contains("Index Scan using " + tables.messages() + "_due_ix")
          .contains(tables.messages() + "_key_ix")
          .contains(tables.parkedKeys() + "_pk")
          .doesNotContain("Seq Scan on " + tables.messages());
      // The plan the server adopts for a statement prepared over and over walks the same way.
      String generic =
          PostgresOutboxStoreTest.genericPlan(
              c,
              dev.lambdaoutbox.store.dialect.StoreDialect.of(database().dialect(), tables)
                  .claimHeadsSql());
      assertThat(generic)
          .contains(tables.messages() + "_due_ix")
          .contains(tables.messages() + "_key_ix")
          .doesNotContain("Seq Scan on " + tables.messages());
    }
  }
}
