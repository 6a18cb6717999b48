package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.sql.internal.NamedSql;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The store contract over JDBC against PostgreSQL, and the claim plan there. */
class PostgresOutboxStoreTest extends JdbcOutboxStoreContract {
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
  void claimAndBacklogQueries_withLongHistoryAndBacklog_walkTheirIndexes_notTheTable()
      throws Exception {
    try (Connection c = database().open()) {
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sent(100_000, T0);
      loader.deadLetters(20_000, T0);
      loader.pending(100_000, T0); // a large backlog: when a bad plan would hurt most
      String waitingKey = misconfiguredDestinationKey();
      // Statistics first: on a table it believes empty, the planner may run the UPDATE's IN as a
      // nested loop over the 5,000 ids for each of the 220,000 rows (minutes, not milliseconds).
      loader.analyze();
      try (Statement st = c.createStatement()) {
        st.execute(
            "UPDATE "
                + tables.messages()
                + " SET waiting_for = '"
                + waitingKey
                + "' WHERE id IN (SELECT id FROM "
                + tables.messages()
                + " ORDER BY id LIMIT 5000)");
      }
      loader.analyze();

      String plan = Stores.explainClaim(database(), tables, T0.plusSeconds(1), 500);
      assertThat(plan).contains(tables.messages() + "_due_ix");
      assertThat(plan).doesNotContain("Seq Scan on " + tables.messages());

      // The plan the server adopts for a statement prepared again and again (a generic plan,
      // made without knowing the parameters) must walk the index too.
      String generic = genericPlan(c, StoreSql.explain(database().dialect(), tables).claimSql());
      assertThat(generic).contains(tables.messages() + "_due_ix");
      assertThat(generic).doesNotContain("Seq Scan on " + tables.messages());

      // The metrics' query: the oldest unpublished row is one entry of the unpublished index, the
      // dead letters are counted no further than the cap, the rows waiting for a misconfigured
      // destination along the waiting index.
      String backlog = Stores.explainBacklog(database(), tables, T0.plusSeconds(1));
      assertThat(backlog)
          .contains("Index Only Scan using " + tables.messages() + "_unpublished_ix")
          .contains(tables.messages() + "_waiting_ix")
          .doesNotContain("Seq Scan on " + tables.messages())
          .contains("Limit");

      // The reprocessor's count and list of the rows waiting for their time: the end of the
      // unpublished index, from now on.
      String waitingForTime = Stores.explainWaitingForTime(database(), tables, T0.plusSeconds(1));
      assertThat(waitingForTime)
          .contains(tables.messages() + "_unpublished_ix")
          .doesNotContain("Seq Scan on " + tables.messages())
          .doesNotContain("Sort  (")
          .contains("Limit");
    }
  }

  /** Parameters: now, limit, lease end, lease end, owner; times as UTC timestamps. */
  private static String genericPlan(Connection c, String namedSql) throws Exception {
    String sql = NamedSql.of(namedSql).positional();
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
    }
    StringBuilder plan = new StringBuilder();
    try (Statement st = c.createStatement()) {
      st.execute("SET plan_cache_mode = force_generic_plan");
      st.execute(
          "PREPARE claim_plan(timestamp, int, timestamp, timestamp, varchar) AS " + numbered);
      try (ResultSet rs =
          st.executeQuery(
              "EXPLAIN EXECUTE claim_plan('2026-03-01 10:00:01', 500,"
                  + " '2026-03-01 10:01:00', '2026-03-01 10:01:00', 'explain')")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      st.execute("DEALLOCATE claim_plan");
    }
    return plan.toString();
  }
}
