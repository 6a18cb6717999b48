package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The retention pass over JDBC against PostgreSQL. */
class PostgresRetentionPurgeTest extends RetentionPurgeContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }

  /**
   * A purge finds the rows it deletes by their ctid, whatever the statistics say. Here they say the
   * tables are empty, as after a vacuum of drained tables, and thousands of expired rows have come
   * since: a DELETE joined to its locking SELECT, planned from them, re-ran that SELECT once per
   * row of the table, past the statement timeout on 30,000 rows, and deleted more than its limit.
   */
  @Test
  void purge_withTheStatisticsOfDrainedTables_deletesByCtid_withoutAJoin() throws Exception {
    Instant cutoff = T0.plus(WINDOW);
    try (Connection c = database().open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sent(5_000, T0);
      loader.idempotencyKeys("old-", 5_000, T0);
      try (Statement st = c.createStatement()) {
        for (String table : new String[] {tables.messages(), tables.idempotencyKeys()}) {
          st.execute("DELETE FROM " + table);
          st.execute("VACUUM (ANALYZE, TRUNCATE false) " + table);
        }
      }
      loader.sent(5_000, T0);
      loader.idempotencyKeys("new-", 5_000, T0);
    }

    String sent = Stores.explainPurgeSent(database(), tables, cutoff, 2_000);
    String keys = Stores.explainPurgeIdempotencyKeys(database(), tables, cutoff, 2_000);

    assertThat(sent)
        .contains("LockRows")
        .contains("Tid Scan on " + tables.messages())
        .doesNotContain("Join")
        .doesNotContain("Nested Loop");
    assertThat(keys)
        .contains("LockRows")
        .contains("Tid Scan on " + tables.idempotencyKeys())
        .doesNotContain("Join")
        .doesNotContain("Nested Loop");
  }
}
