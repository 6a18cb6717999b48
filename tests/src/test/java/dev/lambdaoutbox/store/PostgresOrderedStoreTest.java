package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.internal.NamedSql;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PostgresOrderedStoreTest extends OrderedStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }

  /**
   * One aggregate with a million PENDING events, and a few others: the ordered claim's key walk
   * steps from key to key down the partial key index (one descent each, a row comparison as its
   * index condition), and never reads the big aggregate's rows (nor, then, any table in full); the
   * generic plan the server adopts for a statement prepared over and over walks the same way. The
   * heads are then locked by id.
   */
  @Test
  void orderedClaim_withAMillionEventsInOneKey_walksTheKeyIndexFromKeyToKey() throws Exception {
    try (Connection c = database().open()) {
      try {
        aMillionEventsInOneKey(c);

        String plan = Stores.explainWalkKeys(database(), tables, null, T0.plusSeconds(2), 400);
        String fromCursor =
            Stores.explainWalkKeys(
                database(), tables, new KeyHead.Key("order", "o-0"), T0.plusSeconds(2), 400);
        String generic =
            genericPlan(c, StoreSql.explain(database().dialect(), tables).walkKeysSql());
        String lock =
            Stores.explainClaimHeads(
                database(),
                tables,
                firstIds(c, 10).stream().map(UUID::toString).toList(),
                T0.plusSeconds(2));

        for (String walk : List.of(plan, fromCursor, generic)) {
          assertThat(walk)
              .contains("Recursive Union")
              .contains("Index Scan using " + tables.messages() + "_key_ix")
              .contains("Index Cond: (ROW(")
              .doesNotContain("Seq Scan on " + tables.messages())
              .doesNotContain("Bitmap Heap Scan on " + tables.messages());
        }
        assertThat(lock)
            .contains("LockRows")
            .contains(tables.messages() + "_pk")
            .contains(tables.messages() + "_key_ix")
            .doesNotContain("Seq Scan on " + tables.messages());
      } finally {
        // The table shrinks back: the class's plan tests on a drained outbox's statistics read
        // its size, which a DELETE of a million rows would leave behind.
        try (Statement st = c.createStatement()) {
          st.execute("TRUNCATE " + tables.messages());
        }
      }
    }
  }

  /**
   * Holding back the rows behind heads that back off starts from the heads, whatever the statistics
   * say. Here they say the table is empty, as after a vacuum of a drained outbox, and a backlog has
   * come since: a join of the table with itself planned from them walked every PENDING row and
   * probed for its head, seconds on a few thousand rows. Now the statement is driven by the list of
   * heads, each read by its primary key, so it does at most one read of the rows behind per head.
   * Which index that read takes on these statistics is the planner's choice between equal costs
   * (the key index's range, or the partial index of PENDING rows and a sort: both cost 8.3 on a
   * table said to be empty), and it has gone either way in runs of this class; once the table is
   * analysed again (autovacuum does after 50 rows and a tenth of the table have changed) it is the
   * key index's range, which the next test checks.
   */
  @Test
  void holdBehind_withTheStatisticsOfADrainedOutbox_readsEachHeadByItsPrimaryKey()
      throws Exception {
    List<UUID> heads;
    try (Connection c = database().open()) {
      backlogOnTheStatisticsOfADrainedOutbox(c);
      heads = firstIds(c, 10);
    }

    String plan = Stores.explainHoldBehind(database(), tables, heads);

    assertThat(plan)
        .as("driven by the heads, each one probe of the primary key")
        .containsPattern(
            "Nested Loop[^\\n]*\\n\\s*->  Nested Loop[^\\n]*\\n\\s*->  Function Scan on"
                + " json_array_elements_text")
        .containsPattern("(Index Scan using|Bitmap Index Scan on) " + tables.messages() + "_pk ")
        .contains("LockRows")
        .contains("Tid Scan on " + tables.messages())
        .doesNotContain("Filter: (id = ANY")
        .doesNotContain("Seq Scan on " + tables.messages());
  }

  /**
   * With statistics that know the backlog, the rows behind each head are a range of the key index
   * from the head's seq, bounded by the chunk: no partial index is read whole.
   */
  @Test
  void holdBehind_onAnalysedStatistics_readsARangeOfTheKeyIndexPerHead() throws Exception {
    List<UUID> heads;
    try (Connection c = database().open()) {
      backlogOnTheStatisticsOfADrainedOutbox(c);
      try (Statement st = c.createStatement()) {
        st.execute("ANALYZE " + tables.messages());
      }
      heads = firstIds(c, 10);
    }

    String plan = Stores.explainHoldBehind(database(), tables, heads);

    assertThat(plan)
        .containsPattern(
            "Index Scan using "
                + tables.messages()
                + "_key_ix[^\\n]*\\n\\s*Index Cond: \\(\\(\\(aggregate_type\\)[^\\n]*seq >")
        .doesNotContain("Recheck Cond: ((status)")
        .doesNotContain(tables.messages() + "_unpublished_ix")
        .doesNotContain(tables.messages() + "_due_ix")
        .doesNotContain("Seq Scan on " + tables.messages());
  }

  /**
   * Holding back the window's rows that are due before their waiting heads stays one pass, whatever
   * the statistics say: here they say the table is empty, and a backlog has come since. The window
   * may then be read off either partial index (the plans cost the same on those statistics), but
   * each row's head is one probe of the key index, and the rows are locked and moved by ctid: no
   * step reads the backlog once per row.
   */
  @Test
  void holdBehindWaitingHeads_withTheStatisticsOfADrainedOutbox_walksTheWindowOnly()
      throws Exception {
    try (Connection c = database().open()) {
      backlogOnTheStatisticsOfADrainedOutbox(c);
    }

    String plan = Stores.explainHoldBehindWaitingHeads(database(), tables, T0.plusSeconds(1), 100);

    assertThat(plan)
        .contains("Index Scan using " + tables.messages() + "_key_ix")
        .contains("LockRows")
        .doesNotContain("Seq Scan on " + tables.messages());
    assertThat(plan.split("Tid Scan on " + tables.messages(), -1))
        .as("rows locked by ctid, then moved by ctid")
        .hasSize(3);
  }

  /**
   * 5,000 PENDING rows over 100 aggregates, on statistics taken while the table was empty: a
   * backlog loaded into an empty table, deleted and vacuumed (as after a drain), then loaded again.
   * The table starts empty (truncated), so the statistics are those of that history alone, not of
   * what the class's other tests left in the table before.
   */
  private void backlogOnTheStatisticsOfADrainedOutbox(Connection c) throws Exception {
    c.setAutoCommit(true);
    HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
    try (Statement st = c.createStatement()) {
      st.execute("TRUNCATE " + tables.messages());
    }
    loader.pendingOverKeys(5_000, 100, T0);
    try (Statement st = c.createStatement()) {
      st.execute("DELETE FROM " + tables.messages());
      st.execute("VACUUM (ANALYZE, TRUNCATE false) " + tables.messages());
    }
    loader.pendingOverKeys(5_000, 100, T0);
  }

  /** The generic plan of {@code namedSql}, its parameters typed by name. */
  private static String genericPlan(Connection c, String namedSql) throws Exception {
    NamedSql sql = NamedSql.of(namedSql);
    Map<String, String[]> typed =
        Map.of(
            "now", new String[] {"timestamp", "'2026-03-01 10:00:01'"},
            "leaseEnd", new String[] {"timestamp", "'2026-03-01 10:01:00'"},
            "limit", new String[] {"int", "100"},
            "scan", new String[] {"int", "400"},
            "keys", new String[] {"int", "400"},
            "afterType", new String[] {"varchar", "'order'"},
            "afterId", new String[] {"varchar", "'o-0'"},
            "owner", new String[] {"varchar", "'explain'"});
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.positional().toCharArray()) {
      numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
    }
    List<String> types = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (String name : sql.names()) {
      types.add(typed.get(name)[0]);
      values.add(typed.get(name)[1]);
    }
    StringBuilder plan = new StringBuilder();
    try (Statement st = c.createStatement()) {
      st.execute("SET plan_cache_mode = force_generic_plan");
      st.execute("PREPARE heads_plan(" + String.join(", ", types) + ") AS " + numbered);
      try (ResultSet rs =
          st.executeQuery("EXPLAIN EXECUTE heads_plan(" + String.join(", ", values) + ")")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      st.execute("DEALLOCATE heads_plan");
      st.execute("RESET plan_cache_mode");
    }
    return plan.toString();
  }
}
