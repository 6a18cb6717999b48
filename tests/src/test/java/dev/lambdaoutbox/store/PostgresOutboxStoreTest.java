package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.store.jdbc.internal.ClaimQuery;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

class PostgresOutboxStoreTest extends OutboxStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  String sessionIdSql() {
    return "SELECT pg_backend_pid()";
  }

  @Override
  String killSessionSql(long sessionId) {
    return "SELECT pg_terminate_backend(" + sessionId + ")";
  }

  @Test
  void claimQuery_withLongHistory_walksTheDueIndex_notTheTable() throws Exception {
    try (Connection c = database().open()) {
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sent(200_000, T0);
      loader.deadLetters(50_000, T0);
      loader.pending(1_000, T0);
      loader.analyze();

      String plan = ClaimQuery.of(database().dialect(), tables).explain(c, T0.plusSeconds(1), 500);

      assertThat(plan).contains(tables.messages() + "_due_ix");
      assertThat(plan).doesNotContain("Seq Scan on " + tables.messages());
    }
  }
}
