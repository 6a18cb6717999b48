package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
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

  /**
   * One aggregate with a million PENDING events, and a few others: wherever the walk starts, before
   * the big aggregate or past it, it reads the pending key index in order as a range bounded by its
   * LIMIT (never sorting, never reading the table) and the heads by their unique seq; the heads are
   * then locked by primary key. The plan has no other shape to take, whatever the statistics say.
   */
  @Test
  void orderedClaim_withAMillionEventsInOneKey_walksTheKeyIndexFromKeyToKey() throws Exception {
    try (Connection c = database().open()) {
      aMillionEventsInOneKey(c);

      String plan = Stores.explainWalkKeys(database(), tables, null, T0.plusSeconds(2), 400);
      String beforeTheBigKey =
          Stores.explainWalkKeys(
              database(), tables, new KeyHead.Key("order", "a"), T0.plusSeconds(2), 400);
      String afterTheBigKey =
          Stores.explainWalkKeys(
              database(), tables, new KeyHead.Key("order", "o-0"), T0.plusSeconds(2), 400);
      String lock =
          Stores.explainClaimHeads(
              database(),
              tables,
              firstIds(c, 10).stream().map(UUID::toString).toList(),
              T0.plusSeconds(2));

      for (String walk : List.of(plan, beforeTheBigKey, afterTheBigKey)) {
        assertThat(walk)
            .contains("\"key\": \"" + tables.messages() + "_status_key_ix\"")
            .contains("\"access_type\": \"range\"")
            .contains("\"using_index\": true")
            .contains("\"key\": \"" + tables.messages() + "_seq_uq\"")
            .doesNotContain("filesort")
            .doesNotContain("\"access_type\": \"ALL\"");
      }
      assertThat(lock)
          .contains("\"key\": \"PRIMARY\"")
          .containsPattern("\"key\": \"" + tables.messages() + "_(status_)?key_ix\"")
          .doesNotContain("\"access_type\": \"ALL\"");
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
        .containsPattern("\"key\": \"" + tables.messages() + "_(status_)?key_ix\"")
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
        .containsPattern("\"key\": \"" + tables.messages() + "_(status_)?key_ix\"")
        .contains("\"key\": \"PRIMARY\"")
        .containsPattern("<derived\\d+>");
    assertThat(plan.split("\"access_type\": \"ALL\"", -1)).hasSize(2);
  }

  /**
   * 100,000 SENT (retained) rows over 50,000 aggregates that have nothing pending, among them in
   * key order 200 aggregates of 5 PENDING events each: a walk of 100 keys reads the PENDING part of
   * the pending key index alone, reaching 100 aggregates, each with its ready head, in a few
   * hundred index reads (the session's Handler_read counters), where the key index would have led
   * it through the sent rows' aggregates between them.
   */
  @Test
  void aWalk_besideAggregatesWithOnlySentRows_readsThePendingEntriesAlone() throws Exception {
    try (Connection c = database().open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sentOverKeys(100_000, 50_000, 1_000, T0); // o-1000 .. o-50999, between o-1 .. o-199
      loader.pendingOverKeys(1_000, 200, T0);
      loader.analyze();
    }
    OutboxSql sql = StoreSql.of(database().dialect(), tables).outbox();

    Walk walk;
    try (JdbcConnectionProvider connections = Stores.connections(database(), tables)) {
      walk =
          JdbcExecutor.of(connections)
              .inTransaction(
                  "walk the keys",
                  s -> {
                    long idle = -indexReads(s) + indexReads(s); // reading the counters alone
                    long before = indexReads(s);
                    List<KeyHead> heads = sql.walkKeys(s, null, null, 100, T0.plusSeconds(1));
                    return new Walk(heads, indexReads(s) - before - idle);
                  });
    }

    assertThat(walk.heads()).hasSize(100).allSatisfy(h -> assertThat(h.ready()).isTrue());
    assertThat(walk.heads().stream().map(h -> h.key().aggregateId()).distinct()).hasSize(100);
    assertThat(walk.heads().stream().map(KeyHead::headId).distinct()).hasSize(100);
    assertThat(walk.indexReads()).as("index entries read").isBetween(100L, 2_000L);
  }

  /** The keys a walk reached, and the index entries it read. */
  private record Walk(List<KeyHead> heads, long indexReads) {}

  /**
   * The session's index reads so far: descents (Handler_read_key, Handler_read_first) and entries
   * read in index order (Handler_read_next, Handler_read_prev).
   */
  private static long indexReads(SqlSession s) {
    long reads = 0;
    for (Row row : s.query("SHOW SESSION STATUS LIKE 'Handler_read%'", Params.of())) {
      if (List.of(
              "Handler_read_key", "Handler_read_first", "Handler_read_next", "Handler_read_prev")
          .contains(row.text("Variable_name"))) {
        reads += Long.parseLong(row.text("Value"));
      }
    }
    return reads;
  }
}
