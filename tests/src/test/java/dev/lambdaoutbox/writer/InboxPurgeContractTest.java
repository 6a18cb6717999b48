package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The inbox purge against a real database: rows inside the window stay (so a redelivery is still
 * absorbed), a call deletes at most its limit of the oldest expired rows, and it skips rows another
 * transaction holds instead of waiting. One small subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InboxPurgeContractTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  private TestDatabase db;
  private Jdbi jdbi;
  private OutboxTables tables;
  private String counters;

  abstract TestDatabase database();

  @BeforeAll
  void createTables() throws SQLException {
    db = database();
    jdbi = db.jdbi();
    tables = db.createTables("purge");
    counters = tables.prefix() + "counters";
    execute(
        "CREATE TABLE "
            + counters
            + " (name varchar(64) NOT NULL PRIMARY KEY, hits int NOT NULL DEFAULT 0)");
  }

  @AfterAll
  void dropTables() throws SQLException {
    if (tables != null) {
      execute("DROP TABLE IF EXISTS " + counters);
      db.dropTables(tables);
    }
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    execute("DELETE FROM " + tables.inbox());
    execute("DELETE FROM " + counters);
  }

  @Test
  void purge_keepsRowsInsideTheWindow_soARedeliveryIsStillSkipped() throws Exception {
    Inbox inbox = Inbox.create(tables);
    execute("INSERT INTO " + counters + " (name) VALUES ('m-1')");
    Instant processed = Instant.now();
    assertThat(deliver(inbox, "m-1")).isEqualTo(InboxResult.PROCESSED);

    // The purge runs every few minutes; 14 days later (SQS's longest retention) the row is kept.
    int purgedInside = purgeAt(processed.plus(Duration.ofDays(14))).purge(jdbi);
    InboxResult redelivery = deliver(inbox, "m-1");

    assertThat(purgedInside).isZero();
    assertThat(redelivery).isEqualTo(InboxResult.SKIPPED);
    assertThat(hits("m-1")).isEqualTo(1);

    // Past the 15-day default window the row goes, and with it the protection.
    int purgedAfter =
        purgeAt(processed.plus(InboxPurge.DEFAULT_RETENTION).plusSeconds(60)).purge(jdbi);
    assertThat(purgedAfter).isEqualTo(1);
    assertThat(deliver(inbox, "m-1")).isEqualTo(InboxResult.PROCESSED);
    assertThat(hits("m-1")).isEqualTo(2);
  }

  @Test
  void purge_deletesAtMostMaxRowsACallOldestFirst_andLeavesNewerRows() throws Exception {
    insertRows("old", 2_500, T.minus(Duration.ofDays(20)));
    insertRows("recent", 100, T.minus(Duration.ofDays(1)));
    InboxPurge purge = purgeAt(T, 1_000);

    List<Integer> deleted = new ArrayList<>();
    for (int call = 0; call < 4; call++) {
      deleted.add(purge.purge(jdbi));
    }

    assertThat(deleted).containsExactly(1_000, 1_000, 500, 0);
    assertThat(messageIds()).hasSize(100).allSatisfy(id -> assertThat(id).startsWith("recent-"));
  }

  @Test
  void purge_takesTheOldestFirst() throws Exception {
    insertRows("older", 3, T.minus(Duration.ofDays(30)));
    insertRows("old", 3, T.minus(Duration.ofDays(20)));

    assertThat(purgeAt(T, 3).purge(jdbi)).isEqualTo(3);

    assertThat(messageIds()).allSatisfy(id -> assertThat(id).startsWith("old-"));
  }

  @Test
  @Timeout(60)
  void purge_whenAnotherTransactionHoldsAnExpiredRow_skipsItWithoutWaiting() throws Exception {
    insertRows("old", 3, T.minus(Duration.ofDays(20)));
    InboxPurge purge = purgeAt(T, 100);

    try (Connection holder = db.open()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.executeQuery(
                "SELECT message_id FROM "
                    + tables.inbox()
                    + " WHERE consumer_name = 'shop' AND message_id = 'old-1' FOR UPDATE")
            .close();
      }
      int deletedWhileHeld = purge.purge(jdbi);
      insertRows("new", 1, T);

      assertThat(deletedWhileHeld).isEqualTo(2);
      assertThat(messageIds()).containsExactlyInAnyOrder("old-1", "new-0");
      holder.commit();
    }

    assertThat(purge.purge(jdbi)).isEqualTo(1);
    assertThat(messageIds()).containsExactly("new-0");
  }

  @Test
  void purge_onAConnection_restoresAutoCommitAndIsolation() throws Exception {
    insertRows("old", 2, T.minus(Duration.ofDays(20)));

    try (Connection c = db.open()) {
      c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);

      assertThat(purgeAt(T, 100).purge(c)).isEqualTo(2);

      assertThat(c.getAutoCommit()).isTrue();
      assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
    }
    assertThat(messageIds()).isEmpty();
  }

  @Test
  void purge_onAConnectionInsideATransaction_refusesAndDeletesNothing() throws Exception {
    insertRows("old", 2, T.minus(Duration.ofDays(20)));

    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> purgeAt(T, 100).purge(c))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("connection: ")
          .hasMessageContaining("auto-commit");
      c.rollback();
    }
    assertThat(messageIds()).hasSize(2);
  }

  // --- helpers ---------------------------------------------------------------------------------

  private InboxPurge purgeAt(Instant now) {
    return InboxPurge.builder().tables(tables).clock(Clock.fixed(now, ZoneOffset.UTC)).build();
  }

  private InboxPurge purgeAt(Instant now, int maxRows) {
    return InboxPurge.builder()
        .tables(tables)
        .maxRows(maxRows)
        .clock(Clock.fixed(now, ZoneOffset.UTC))
        .build();
  }

  /** A delivery in its own transaction whose work counts a hit. */
  private InboxResult deliver(Inbox inbox, String messageId) {
    return jdbi.inTransaction(
        handle ->
            inbox.processOnce(
                handle,
                "shop",
                messageId,
                () ->
                    handle.execute(
                        "UPDATE " + counters + " SET hits = hits + 1 WHERE name = ?", messageId)));
  }

  private long hits(String name) throws SQLException {
    return WriterTestSupport.count(
        db, "SELECT hits FROM " + counters + " WHERE name = '" + name + "'");
  }

  /** {@code n} inbox rows {@code label-0} ... processed at {@code at}. */
  private void insertRows(String label, int n, Instant at) throws SQLException {
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + tables.inbox()
                    + " (consumer_name, message_id, processed_at) VALUES (?, ?, ?)")) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        ps.setString(1, "shop");
        ps.setString(2, label + "-" + i);
        JdbcValues.setInstant(ps, 3, at.plusMillis(i), db.dialect());
        ps.addBatch();
      }
      ps.executeBatch();
      c.commit();
    }
  }

  private List<String> messageIds() throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT message_id FROM " + tables.inbox())) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
