package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.reprocessor.PollerRunner;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The idempotency window on the writer's side, against a real database: a key stays taken after its
 * event has been published and has left the outbox, writers racing for one key end with exactly one
 * event, and every refusal names the first event, writes nothing and leaves the caller's
 * transaction usable. One small subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IdempotencyWindowContractTest {
  private static final Instant NOW = Instant.parse("2031-05-06T07:08:09.123456Z");

  private TestDatabase db;
  private OutboxTables tables;
  private String orders;
  private OutboxWriter writer;

  abstract TestDatabase database();

  @BeforeAll
  void createTables() throws SQLException {
    db = database();
    tables = db.createTables("idem");
    orders = tables.prefix() + "orders";
    writer = OutboxWriter.builder().tables(tables).clock(Clock.fixed(NOW, ZoneOffset.UTC)).build();
    execute("CREATE TABLE " + orders + " (id varchar(64) NOT NULL PRIMARY KEY)");
  }

  @AfterAll
  void dropTables() throws SQLException {
    if (tables != null) {
      execute("DROP TABLE IF EXISTS " + orders);
      db.dropTables(tables);
    }
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    for (String table : List.of(tables.messages(), tables.idempotencyKeys(), orders)) {
      execute("DELETE FROM " + table);
    }
  }

  @Test
  @Timeout(120)
  void append_whenFirstEventWasPublishedAndLeftTheOutbox_refusesNamingTheFirstEvent()
      throws Exception {
    try (PollerRunner poller = new PollerRunner(db, tables)) {
      String queue = poller.queue("idem");
      try {
        OutboxEvent first = order("o-1").idempotencyKey("checkout-42").destination(queue).build();
        // On the real clock, so that the poller finds the row due.
        OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
        try (Connection c = transaction()) {
          insertOrder(c, "o-1");
          writer.append(c, first);
          c.commit();
        }

        PollSummary published = poller.poll();

        assertThat(published.published()).isEqualTo(1);
        assertThat(count(tables.messages())).as("retention 0: the row left the outbox").isZero();
        List<Message> received = poller.receive(queue, 1);
        assertThat(received)
            .extracting(m -> PollerRunner.attribute(m, "eventId"))
            .containsExactly(first.id().toString());

        // The client's checkout request timed out and is retried.
        OutboxEvent retry = order("o-1").idempotencyKey("checkout-42").destination(queue).build();
        try (Connection c = transaction()) {
          DuplicateIdempotencyKeyException refused =
              catchThrowableOfType(
                  DuplicateIdempotencyKeyException.class, () -> writer.append(c, retry));
          assertThat(refused).isNotNull();
          assertThat(refused.idempotencyKey()).isEqualTo("checkout-42");
          assertThat(refused.firstEventId()).isEqualTo(first.id());
          insertOrder(c, "o-1-retry-answered");
          c.commit();
        }

        assertThat(count(tables.messages())).isZero();
        assertThat(poller.poll().published()).isZero();
        assertThat(orderIds()).containsExactlyInAnyOrder("o-1", "o-1-retry-answered");
        assertThat(heldKeys()).containsExactly(Map.entry("checkout-42", first.id()));
      } finally {
        poller.sqs.deleteQueue(r -> r.queueUrl(queue));
      }
    }
  }

  @Test
  @Timeout(120)
  void append_from8WritersRacingForOneKey_writesOneEventAndRefusesSevenNamingIt() throws Exception {
    int writers = 8;
    CyclicBarrier start = new CyclicBarrier(writers);
    List<Callable<Object>> tasks = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String order = "o-" + w;
      tasks.add(
          () -> {
            OutboxEvent event = order(order).idempotencyKey("checkout-race").build();
            try (Connection c = transaction()) {
              insertOrder(c, order);
              start.await(30, TimeUnit.SECONDS);
              Object outcome;
              try {
                writer.append(c, event);
                outcome = event.id();
              } catch (DuplicateIdempotencyKeyException e) {
                outcome = e;
              }
              c.commit();
              return outcome;
            }
          });
    }

    List<Object> outcomes = WriterTestSupport.runAll(tasks);

    List<UUID> written =
        outcomes.stream().filter(UUID.class::isInstance).map(o -> (UUID) o).toList();
    assertThat(written).hasSize(1);
    UUID winner = written.get(0);
    assertThat(outcomes)
        .filteredOn(DuplicateIdempotencyKeyException.class::isInstance)
        .hasSize(7)
        .allSatisfy(
            o -> {
              DuplicateIdempotencyKeyException e = (DuplicateIdempotencyKeyException) o;
              assertThat(e.idempotencyKey()).isEqualTo("checkout-race");
              assertThat(e.firstEventId()).isEqualTo(winner);
            });
    assertThat(storedIds()).containsExactly(winner);
    assertThat(heldKeys()).containsExactly(Map.entry("checkout-race", winner));
    assertThat(orderIds()).as("every refused transaction went on and committed").hasSize(8);
  }

  @Test
  void append_writesTheKeyWithTheEventAndTheWritersClock() throws Exception {
    OutboxEvent event = order("o-1").idempotencyKey("checkout-1").build();

    placeOrder("o-1", event);

    assertThat(heldKeys()).containsExactly(Map.entry("checkout-1", event.id()));
    assertThat(firstSeen("checkout-1")).isEqualTo(NOW);
  }

  @Test
  void append_whenTheFirstTransactionRolledBack_acceptsTheKey() throws Exception {
    OutboxEvent rolledBack = order("o-1").idempotencyKey("checkout-1").build();
    try (Connection c = transaction()) {
      writer.append(c, rolledBack);
      c.rollback();
    }
    OutboxEvent second = order("o-1").idempotencyKey("checkout-1").build();

    placeOrder("o-1", second);

    assertThat(storedIds()).containsExactly(second.id());
    assertThat(heldKeys()).containsExactly(Map.entry("checkout-1", second.id()));
  }

  @Test
  void append_whenKeyCommittedAfterTheCallersFirstRead_refusesNamingItsEvent() throws Exception {
    try (Connection c = transaction()) {
      // The caller reads first: in MySQL's REPEATABLE READ this fixes its snapshot, which then
      // cannot see the key committed below.
      assertThat(orderIds(c)).isEmpty();
      OutboxEvent first = order("o-1").idempotencyKey("checkout-1").build();
      placeOrder("o-1", first);

      DuplicateIdempotencyKeyException refused =
          catchThrowableOfType(
              DuplicateIdempotencyKeyException.class,
              () -> writer.append(c, order("o-1").idempotencyKey("checkout-1").build()));

      assertThat(refused).isNotNull();
      assertThat(refused.firstEventId()).isEqualTo(first.id());
      insertOrder(c, "o-2");
      c.commit();
    }
    assertThat(orderIds()).containsExactlyInAnyOrder("o-1", "o-2");
    assertThat(count(tables.messages())).isEqualTo(1);
  }

  @Test
  void append_whenOnlyAnOutboxRowStillCarriesTheKey_refusesNamingThatRowAndHoldsNothingNew()
      throws Exception {
    // The row has waited longer than the window (a long broker outage) and its key was purged.
    OutboxEvent pending = order("o-1").idempotencyKey("checkout-1").build();
    placeOrder("o-1", pending);
    execute("DELETE FROM " + tables.idempotencyKeys());

    try (Connection c = transaction()) {
      DuplicateIdempotencyKeyException single =
          catchThrowableOfType(
              DuplicateIdempotencyKeyException.class,
              () -> writer.append(c, order("o-2").idempotencyKey("checkout-1").build()));
      DuplicateIdempotencyKeyException batch =
          catchThrowableOfType(
              DuplicateIdempotencyKeyException.class,
              () ->
                  writer.appendAll(
                      c,
                      List.of(
                          order("o-3").idempotencyKey("checkout-3").build(),
                          order("o-3").idempotencyKey("checkout-1").build(),
                          order("o-3").build())));

      assertThat(single.firstEventId()).isEqualTo(pending.id());
      assertThat(batch.idempotencyKey()).isEqualTo("checkout-1");
      assertThat(batch.firstEventId()).isEqualTo(pending.id());
      OutboxEvent other = order("o-4").idempotencyKey("checkout-4").build();
      writer.append(c, other);
      c.commit();

      assertThat(storedIds()).containsExactlyInAnyOrder(pending.id(), other.id());
      assertThat(heldKeys()).containsExactly(Map.entry("checkout-4", other.id()));
    }
  }

  @Test
  void appendAll_whenOneKeyOfTheBatchIsHeld_writesNoneAndHoldsNoneOfItsKeys() throws Exception {
    OutboxEvent first = order("o-1").idempotencyKey("checkout-2").build();
    placeOrder("o-1", first);
    List<OutboxEvent> batch =
        List.of(
            order("o-2").idempotencyKey("checkout-1").build(),
            order("o-2").idempotencyKey("checkout-2").build(),
            order("o-2").idempotencyKey("checkout-3").build());

    try (Connection c = transaction()) {
      insertOrder(c, "o-2");
      DuplicateIdempotencyKeyException refused =
          catchThrowableOfType(
              DuplicateIdempotencyKeyException.class, () -> writer.appendAll(c, batch));
      assertThat(refused.idempotencyKey()).isEqualTo("checkout-2");
      assertThat(refused.firstEventId()).isEqualTo(first.id());
      c.commit();
    }

    assertThat(storedIds()).containsExactly(first.id());
    assertThat(heldKeys()).containsExactly(Map.entry("checkout-2", first.id()));
    assertThat(orderIds()).containsExactlyInAnyOrder("o-1", "o-2");
  }

  @Test
  void appendAll_whenAnEventFailsForAnotherReason_leavesNoKeyHeldAndTheTransactionUsable()
      throws Exception {
    OutboxEvent existing = order("o-1").build();
    placeOrder("o-1", existing);
    // The second event reuses the first one's id: the outbox's primary key refuses it.
    List<OutboxEvent> batch =
        List.of(
            order("o-2").idempotencyKey("checkout-2").build(),
            existing.toBuilder().idempotencyKey("checkout-3").build());

    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isExactlyInstanceOf(OutboxException.class)
          .hasMessageContaining("2 events");
      insertOrder(c, "o-2");
      c.commit();
    }

    assertThat(storedIds()).containsExactly(existing.id());
    assertThat(heldKeys()).isEmpty();
    assertThat(orderIds()).containsExactlyInAnyOrder("o-1", "o-2");
  }

  @Test
  void migrate_fromAVersion1InstallWithKeyedRows_holdsTheirKeysFromTheirCreation()
      throws Exception {
    OutboxTables v1 = db.createTablesUpTo("v1", 1);
    try {
      OutboxEvent keyed = order("o-1").idempotencyKey("checkout-1").build();
      OutboxEvent keyless = order("o-2").build();
      // As a version 1 writer wrote them: V1's columns only.
      try (Connection c = transaction();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + v1.messages()
                      + " (id, aggregate_type, aggregate_id, event_type, payload, idempotency_key,"
                      + " occurred_at, created_at, next_attempt_at)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (OutboxEvent e : List.of(keyed, keyless)) {
          JdbcValues.setUuid(ps, 1, e.id(), db.dialect());
          ps.setString(2, e.aggregateType());
          ps.setString(3, e.aggregateId());
          ps.setString(4, e.eventType());
          ps.setString(5, e.payload());
          ps.setString(6, e.idempotencyKey().orElse(null));
          for (int i = 7; i <= 9; i++) {
            JdbcValues.setInstant(ps, i, NOW, db.dialect());
          }
          ps.executeUpdate();
        }
        c.commit();
      }

      try (Connection c = db.open()) {
        OutboxSchema.create(v1).migrate(c);
      }

      try (Connection c = transaction()) {
        DuplicateIdempotencyKeyException refused =
            catchThrowableOfType(
                DuplicateIdempotencyKeyException.class,
                () ->
                    OutboxWriter.builder()
                        .tables(v1)
                        .build()
                        .append(c, order("o-3").idempotencyKey("checkout-1").build()));
        assertThat(refused.firstEventId()).isEqualTo(keyed.id());
      }
      try (Connection c = db.open();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT idempotency_key, event_id, first_seen_at FROM " + v1.idempotencyKeys())) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("checkout-1");
        assertThat(rs.getString(2)).isEqualTo(keyed.id().toString());
        assertThat(rs.next()).isFalse();
      }
    } finally {
      db.dropTables(v1);
    }
  }

  // --- helpers ---------------------------------------------------------------------------------

  private static OutboxEvent.Builder order(String orderId) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(orderId)
        .eventType("order.placed")
        .payload("{\"orderId\":\"" + orderId + "\"}");
  }

  /** The business row and its event, committed together. */
  private void placeOrder(String orderId, OutboxEvent event) throws SQLException {
    try (Connection c = transaction()) {
      insertOrder(c, orderId);
      writer.append(c, event);
      c.commit();
    }
  }

  private void insertOrder(Connection c, String id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + orders + " (id) VALUES (?)")) {
      ps.setString(1, id);
      ps.executeUpdate();
    }
  }

  private List<String> orderIds() throws SQLException {
    try (Connection c = db.open()) {
      return orderIds(c);
    }
  }

  private List<String> orderIds(Connection c) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id FROM " + orders)) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private List<UUID> storedIds() throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id FROM " + tables.messages())) {
      while (rs.next()) {
        ids.add(UUID.fromString(rs.getString(1)));
      }
    }
    return ids;
  }

  private Map<String, UUID> heldKeys() throws SQLException {
    return WriterTestSupport.heldKeys(db, tables);
  }

  private Instant firstSeen(String key) throws SQLException {
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT first_seen_at FROM "
                    + tables.idempotencyKeys()
                    + " WHERE idempotency_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return JdbcValues.getInstant(rs, "first_seen_at", db.dialect());
      }
    }
  }

  private long count(String table) throws SQLException {
    return WriterTestSupport.count(db, "SELECT count(*) FROM " + table);
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private Connection transaction() throws SQLException {
    Connection c = db.open();
    c.setAutoCommit(false);
    return c;
  }
}
