package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the outbox writer, the inbox and the schema migrator promise, checked against a real
 * database. One small subclass per database says which one, and how to see that a session is
 * waiting for a row lock.
 *
 * <p>Each class makes its own outbox tables and business tables under a random prefix, so classes
 * may run side by side; the tests of one class run one after another and start from empty tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxWriterContractTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "arn:aws:sns:eu-west-1:123456789012:reservations";
  private static final String QUEUE = "https://sqs.eu-west-1.amazonaws.com/123456789012/audit";
  private static final Instant NOW = Instant.parse("2031-05-06T07:08:09.123456789Z");
  private static final Duration LOCK_WAIT_LIMIT = Duration.ofSeconds(20);

  /**
   * InnoDB refreshes information_schema.INNODB_TRX only when nobody read it for 100 ms, so polling
   * faster would keep reading the same stale snapshot.
   */
  private static final Duration LOCK_POLL_INTERVAL = Duration.ofMillis(200);

  private TestDatabase db;
  private Jdbi jdbi;
  private OutboxTables tables;
  private String reservations;
  private String counters;
  private OutboxWriter writer;
  private Inbox inbox;

  /** The database under test. */
  abstract TestDatabase database();

  /** The id under which {@link #isWaitingForLock} knows the session of {@code connection}. */
  abstract long sessionId(Connection connection) throws SQLException;

  /** Whether {@code session} is blocked waiting for a lock another transaction holds. */
  abstract boolean isWaitingForLock(Connection observer, long session) throws SQLException;

  /** The database's view of its sessions and transactions, for a failure message. */
  abstract String describeSessions(Connection observer) throws SQLException;

  @BeforeAll
  void createTables() throws SQLException {
    db = database();
    jdbi = db.jdbi();
    tables = db.createTables("writer");
    reservations = tables.prefix() + "reservations";
    counters = tables.prefix() + "counters";
    writer = OutboxWriter.builder().tables(tables).clock(Clock.fixed(NOW, ZoneOffset.UTC)).build();
    inbox = Inbox.create(tables);
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + reservations
              + " (id varchar(64) NOT NULL PRIMARY KEY, shop varchar(64) NOT NULL)");
      st.execute(
          "CREATE TABLE "
              + counters
              + " (name varchar(64) NOT NULL PRIMARY KEY, hits int NOT NULL)");
    }
  }

  @AfterAll
  void dropTables() throws SQLException {
    if (tables == null) {
      return;
    }
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + reservations);
      st.execute("DROP TABLE IF EXISTS " + counters);
    }
    db.dropTables(tables);
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      for (String table :
          List.of(
              tables.messages(),
              tables.idempotencyKeys(),
              tables.inbox(),
              reservations,
              counters)) {
        st.executeUpdate("DELETE FROM " + table);
      }
    }
  }

  // --- commit and rollback -------------------------------------------------------------------

  @Test
  void append_viaJdbiHandle_whenCommitted_leavesBusinessRowAndOutboxRowWithEveryColumn()
      throws Exception {
    OutboxEvent event = fullEvent("r-1");

    jdbi.useTransaction(
        handle -> {
          insertReservation(handle, "r-1");
          writer.append(handle, event);
        });

    assertThat(reservationIds()).containsExactly("r-1");
    assertStoredExactly(event, singleRow());
  }

  @Test
  void append_viaJdbcConnection_whenCommitted_leavesBusinessRowAndOutboxRowWithEveryColumn()
      throws Exception {
    OutboxEvent event = fullEvent("r-1");

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      writer.append(c, event);
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertStoredExactly(event, singleRow());
  }

  @Test
  void append_withOnlyRequiredFields_storesNullsForTheOptionalOnes() throws Exception {
    OutboxEvent event = event("r-1").build();

    try (Connection c = transaction()) {
      writer.append(c, event);
      c.commit();
    }

    StoredRow row = singleRow();
    assertThat(row.id()).isEqualTo(event.id());
    assertThat(row.headers()).isNull();
    assertThat(row.destination()).isNull();
    assertThat(row.idempotencyKey()).isNull();
    assertThat(row.occurredAt()).isEqualTo(event.occurredAt());
  }

  @Test
  void append_viaJdbiHandle_whenTransactionRollsBack_leavesNeitherRow() throws Exception {
    assertThatThrownBy(
            () ->
                jdbi.useTransaction(
                    handle -> {
                      insertReservation(handle, "r-1");
                      writer.append(handle, fullEvent("r-1"));
                      throw new IllegalStateException("the shop is closed");
                    }))
        .hasMessage("the shop is closed");

    assertThat(reservationIds()).isEmpty();
    assertThat(outboxCount()).isZero();
  }

  @Test
  void append_viaJdbcConnection_whenTransactionRollsBack_leavesNeitherRow() throws Exception {
    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      writer.append(c, fullEvent("r-1"));
      c.rollback();
    }

    assertThat(reservationIds()).isEmpty();
    assertThat(outboxCount()).isZero();
  }

  @Test
  void append_whenConnectionClosesWithoutCommit_leavesNeitherRow() throws Exception {
    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      writer.append(c, fullEvent("r-1"));
      // closed without commit, as when the function dies mid-request
    }

    assertThat(reservationIds()).isEmpty();
    assertThat(outboxCount()).isZero();
  }

  // --- batches ---------------------------------------------------------------------------------

  @Test
  void appendAll_viaJdbiHandle_with1200Events_writesEveryOneAcrossSeveralStatements()
      throws Exception {
    List<OutboxEvent> events = events("big", 1_200, i -> i % 4 == 0);

    jdbi.useTransaction(
        handle -> {
          insertReservation(handle, "big");
          writer.appendAll(handle, events);
        });

    assertThat(storedIds()).hasSize(1_200).isEqualTo(idsOf(events));
    assertThat(keyCount()).isEqualTo(300);
  }

  @Test
  void appendAll_viaJdbcConnection_with1200Events_writesEveryOne() throws Exception {
    List<OutboxEvent> events = events("big", 1_200, i -> false);

    try (Connection c = transaction()) {
      writer.appendAll(c, events);
      c.commit();
    }

    assertThat(storedIds()).hasSize(1_200).isEqualTo(idsOf(events));
    StoredRow any = outboxRows().get(700);
    OutboxEvent sent = events.stream().filter(e -> e.id().equals(any.id())).findFirst().get();
    assertThat(any.payload()).isEqualTo(sent.payload());
    assertThat(any.aggregateId()).isEqualTo(sent.aggregateId());
  }

  @Test
  void appendAll_whenTransactionRollsBack_leavesNoneOfTheBatch() throws Exception {
    try (Connection c = transaction()) {
      insertReservation(c, "big");
      writer.appendAll(c, events("big", 1_200, i -> i % 2 == 0));
      c.rollback();
    }

    assertThat(reservationIds()).isEmpty();
    assertThat(outboxCount()).isZero();
  }

  @Test
  void appendAll_withNoEvents_writesNothingAndKeepsTheTransaction() throws Exception {
    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      writer.appendAll(c, List.of());
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertThat(outboxCount()).isZero();
  }

  // --- concurrency -----------------------------------------------------------------------------

  @Test
  @Timeout(180)
  void append_from16ConcurrentWriters_losesNothingAndAddsNothing() throws Exception {
    int writers = 16;
    int transactionsPerWriter = 25;
    int eventsPerTransaction = 20;
    CyclicBarrier start = new CyclicBarrier(writers);

    List<Callable<List<UUID>>> tasks = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writerNo = w;
      tasks.add(
          () -> writeConcurrently(writerNo, transactionsPerWriter, eventsPerTransaction, start));
    }
    Set<UUID> committed = new HashSet<>();
    for (List<UUID> ids : WriterTestSupport.runAll(tasks)) {
      committed.addAll(ids);
    }

    // Every fifth transaction of each writer rolls back.
    int committedTransactions = writers * (transactionsPerWriter - transactionsPerWriter / 5);
    assertThat(committed).hasSize(committedTransactions * eventsPerTransaction);
    assertThat(outboxCount()).isEqualTo(committed.size());
    assertThat(storedIds()).isEqualTo(committed);
    assertThat(reservationIds()).hasSize(committedTransactions);
  }

  /** One writer's share: transactions of business row plus events, some rolled back. */
  private List<UUID> writeConcurrently(
      int writerNo, int transactions, int eventsPerTransaction, CyclicBarrier start)
      throws Exception {
    List<UUID> committed = new ArrayList<>();
    try (Connection c = transaction()) {
      start.await(30, TimeUnit.SECONDS);
      for (int t = 0; t < transactions; t++) {
        String reservation = "w" + writerNo + "-t" + t;
        insertReservation(c, reservation);
        List<OutboxEvent> events = new ArrayList<>();
        for (int e = 0; e < eventsPerTransaction; e++) {
          OutboxEvent.Builder b = event(reservation);
          if (e % 3 == 0) {
            b.idempotencyKey(reservation + "-e" + e);
          }
          events.add(b.build());
        }
        if (t % 2 == 0) {
          writer.appendAll(c, events);
        } else {
          for (OutboxEvent e : events) {
            writer.append(c, e);
          }
        }
        if (t % 5 == 4) {
          c.rollback();
        } else {
          c.commit();
          events.forEach(e -> committed.add(e.id()));
        }
      }
    }
    return committed;
  }

  // --- idempotency keys ------------------------------------------------------------------------

  @Test
  void append_whenKeyAlreadyCommitted_refusesWritesNothingAndLeavesTransactionUsable()
      throws Exception {
    OutboxEvent first = event("r-1").idempotencyKey("reserve-r-1").build();
    commit(first);

    try (Connection c = transaction()) {
      insertReservation(c, "r-2");
      DuplicateIdempotencyKeyException e =
          catchThrowableOfType(
              DuplicateIdempotencyKeyException.class,
              () -> writer.append(c, event("r-2").idempotencyKey("reserve-r-1").build()));
      assertThat(e).isNotNull();
      assertThat(e.idempotencyKey()).isEqualTo("reserve-r-1");
      assertThat(e.firstEventId()).isEqualTo(first.id());
      // The caller's transaction goes on: on PostgreSQL a failed statement would have aborted it.
      insertReservation(c, "r-3");
      writer.append(c, event("r-3").idempotencyKey("reserve-r-3").build());
      c.commit();
    }

    assertThat(reservationIds()).containsExactlyInAnyOrder("r-2", "r-3");
    assertThat(outboxRows())
        .extracting(StoredRow::idempotencyKey)
        .containsExactlyInAnyOrder("reserve-r-1", "reserve-r-3");
    assertThat(storedIds()).contains(first.id());
  }

  @Test
  void append_viaJdbiHandle_whenKeyAlreadyCommitted_refusesAndTransactionCommitsTheRest()
      throws Exception {
    OutboxEvent first = event("r-1").idempotencyKey("reserve-r-1").build();
    commit(first);

    String outcome =
        jdbi.inTransaction(
            handle -> {
              insertReservation(handle, "r-2");
              try {
                writer.append(handle, event("r-2").idempotencyKey("reserve-r-1").build());
                return "appended";
              } catch (DuplicateIdempotencyKeyException e) {
                // A retried request: answer with what the first one produced.
                insertReservation(handle, "r-2-retry-noted");
                return "duplicate " + e.idempotencyKey() + " of " + e.firstEventId();
              }
            });

    assertThat(outcome).isEqualTo("duplicate reserve-r-1 of " + first.id());
    assertThat(reservationIds()).containsExactlyInAnyOrder("r-2", "r-2-retry-noted");
    assertThat(outboxCount()).isEqualTo(1);
  }

  @Test
  void appendAll_whenKeyRepeatsWithinTheCall_refusesNamingTheKeyAndWritesNothing()
      throws Exception {
    List<OutboxEvent> events =
        List.of(
            event("r-1").idempotencyKey("k-1").build(),
            event("r-1").idempotencyKey("k-2").build(),
            event("r-1").idempotencyKey("k-1").build());

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> writer.appendAll(c, events))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class,
              e -> {
                assertThat(e.field()).isEqualTo("idempotencyKey");
                assertThat(e.getMessage())
                    .contains("'k-1'")
                    .contains(events.get(0).id().toString())
                    .contains(events.get(2).id().toString());
              });
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertThat(outboxCount()).isZero();
  }

  @Test
  void appendAll_whenOneEventClashesWithExistingRow_writesNoneOfTheBatch() throws Exception {
    OutboxEvent existing = event("r-0").idempotencyKey("k-taken").build();
    commit(existing);
    List<OutboxEvent> batch = new ArrayList<>(events("r-1", 5, i -> true));
    batch.set(2, event("r-1").idempotencyKey("k-taken").build());

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isInstanceOfSatisfying(
              DuplicateIdempotencyKeyException.class,
              e -> {
                assertThat(e.idempotencyKey()).isEqualTo("k-taken");
                assertThat(e.firstEventId()).isEqualTo(existing.id());
              });
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertThat(storedIds()).containsExactly(existing.id());
    assertThat(WriterTestSupport.heldKeys(db, tables))
        .containsExactly(Map.entry("k-taken", existing.id()));
  }

  @Test
  void appendAll_whenClashIsInTheSecondStatementOfALargeBatch_writesNoneOfTheBatch()
      throws Exception {
    OutboxEvent existing = event("r-0").idempotencyKey("k-taken").build();
    commit(existing);
    List<OutboxEvent> batch = new ArrayList<>(events("big", 1_100, i -> i % 10 == 0));
    batch.set(777, event("big").idempotencyKey("k-taken").build());

    try (Connection c = transaction()) {
      insertReservation(c, "big");
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isInstanceOfSatisfying(
              DuplicateIdempotencyKeyException.class,
              e -> {
                assertThat(e.idempotencyKey()).isEqualTo("k-taken");
                assertThat(e.firstEventId()).isEqualTo(existing.id());
              });
      insertReservation(c, "after");
      c.commit();
    }

    assertThat(reservationIds()).containsExactlyInAnyOrder("big", "after");
    assertThat(storedIds()).containsExactly(existing.id());
    assertThat(WriterTestSupport.heldKeys(db, tables))
        .containsExactly(Map.entry("k-taken", existing.id()));
  }

  @Test
  void appendAll_whenLongKeyClashes_namesThatKey() throws Exception {
    // Keys longer than the 64 characters MySQL quotes in its duplicate-key message.
    String common = "order-" + "0".repeat(90) + "-line-";
    OutboxEvent existing = event("r-0").idempotencyKey(common + "2").build();
    commit(existing);
    List<OutboxEvent> batch =
        IntStream.rangeClosed(1, 4)
            .mapToObj(i -> event("r-1").idempotencyKey(common + i).build())
            .toList();

    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isInstanceOfSatisfying(
              DuplicateIdempotencyKeyException.class,
              e -> {
                assertThat(e.idempotencyKey()).isEqualTo(common + "2");
                assertThat(e.firstEventId()).isEqualTo(existing.id());
              });
      c.commit();
    }

    assertThat(outboxCount()).isEqualTo(1);
  }

  @Test
  @Timeout(60)
  void append_whenKeyIsHeldByUncommittedTransaction_waitsAndRefusesOnceItCommits()
      throws Exception {
    OutboxEvent held = event("r-1").idempotencyKey("k-contended").build();
    OutboxEvent second = event("r-2").idempotencyKey("k-contended").build();

    Object outcome = contendForKey(held, second, true);

    assertThat(outcome)
        .isInstanceOfSatisfying(
            DuplicateIdempotencyKeyException.class,
            e -> {
              assertThat(e.idempotencyKey()).isEqualTo("k-contended");
              assertThat(e.firstEventId()).isEqualTo(held.id());
            });
    assertThat(storedIds()).containsExactly(held.id());
    // The refused transaction went on and committed its business row.
    assertThat(reservationIds()).containsExactlyInAnyOrder("r-1", "r-2");
  }

  @Test
  @Timeout(60)
  void append_whenKeyIsHeldByTransactionThatRollsBack_writesTheEvent() throws Exception {
    OutboxEvent held = event("r-1").idempotencyKey("k-contended").build();
    OutboxEvent second = event("r-2").idempotencyKey("k-contended").build();

    Object outcome = contendForKey(held, second, false);

    assertThat(outcome).isEqualTo("appended");
    assertThat(storedIds()).containsExactly(second.id());
    assertThat(reservationIds()).containsExactly("r-2");
  }

  /**
   * Appends {@code held} in one transaction and, while it is open, {@code second} in another; then
   * commits or rolls back the first. Returns what the second append did: "appended" or the
   * exception. The second transaction commits its business row either way.
   */
  private Object contendForKey(OutboxEvent held, OutboxEvent second, boolean commitFirst)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Connection first = transaction();
        Connection other = db.open()) {
      insertReservation(first, held.aggregateId());
      writer.append(first, held);

      long otherSession = sessionId(other);
      other.setAutoCommit(false);
      Future<Object> waiting =
          pool.submit(
              () -> {
                insertReservation(other, second.aggregateId());
                Object result;
                try {
                  writer.append(other, second);
                  result = "appended";
                } catch (OutboxException e) {
                  result = e;
                }
                other.commit();
                return result;
              });
      awaitLockWait(otherSession, waiting);
      if (commitFirst) {
        first.commit();
      } else {
        first.rollback();
      }
      return waiting.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
  }

  // --- refusals --------------------------------------------------------------------------------

  @Test
  void append_onAutoCommitConnection_refusesAndWritesNothing() throws Exception {
    try (Connection c = db.open()) {
      assertThat(c.getAutoCommit()).isTrue();

      assertThatThrownBy(() -> writer.append(c, event("r-1").build()))
          .isInstanceOf(TransactionRequiredException.class)
          .hasMessageContaining("auto-commit");
      assertThatThrownBy(() -> writer.appendAll(c, List.of(event("r-1").build())))
          .isInstanceOf(TransactionRequiredException.class);
    }

    assertThat(outboxCount()).isZero();
  }

  @Test
  void append_onJdbiHandleOutsideTransaction_refusesAndWritesNothing() throws Exception {
    jdbi.useHandle(
        handle -> {
          assertThatThrownBy(() -> writer.append(handle, event("r-1").build()))
              .isInstanceOf(TransactionRequiredException.class)
              .hasMessageContaining("Jdbi handle");
          assertThatThrownBy(() -> writer.appendAll(handle, List.of(event("r-1").build())))
              .isInstanceOf(TransactionRequiredException.class);
        });

    assertThat(outboxCount()).isZero();
  }

  @Test
  void append_whenPayloadIsAtConfiguredLimit_acceptsIt() throws Exception {
    OutboxWriter small = OutboxWriter.builder().tables(tables).maxPayloadBytes(1024).build();
    // 1,024 bytes of UTF-8 in 513 characters: the limit counts bytes, not characters.
    String payload = "\"" + "\u00e9".repeat(511) + "\"";
    assertThat(payload.getBytes(StandardCharsets.UTF_8)).hasSize(1024);

    try (Connection c = transaction()) {
      small.append(c, event("r-1").payload(payload).build());
      c.commit();
    }

    assertThat(singleRow().payloadBytes()).isEqualTo(1024);
  }

  @Test
  void append_whenPayloadIsOverConfiguredLimit_refusesNamingPayloadAndWritesNothing()
      throws Exception {
    OutboxWriter small = OutboxWriter.builder().tables(tables).maxPayloadBytes(1024).build();
    String payload = "\"" + "\u00e9".repeat(511) + "x\"";

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> small.append(c, event("r-1").payload(payload).build()))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class,
              e -> {
                assertThat(e.field()).isEqualTo("payload");
                assertThat(e.getMessage()).contains("1025").contains("1024");
              });
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertThat(outboxCount()).isZero();
  }

  @Test
  void append_whenTheMessageWouldBeOver256KiB_refusesNamingPayload_andAcceptsExactly256KiB()
      throws Exception {
    OutboxWriter defaults = OutboxWriter.builder().tables(tables).build();
    OutboxEvent probe = event("r-1").header("traceparent", "00-aa-bb-01").payload("\"\"").build();
    // Payload plus the message attributes (the outbox's five and the header) as SNS/SQS count
    // them: exactly 256 KiB, then one byte more.
    long attributes = probe.messageSize() - 2;
    String atLimit = "\"" + "x".repeat((int) (MessageSize.MAX_BYTES - attributes - 2)) + "\"";
    OutboxEvent fits = probe.toBuilder().payload(atLimit).build();
    OutboxEvent tooLarge = probe.toBuilder().payload("\"x" + atLimit.substring(1)).build();
    assertThat(fits.messageSize()).isEqualTo(MessageSize.MAX_BYTES);

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> defaults.append(c, tooLarge))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class,
              e -> {
                assertThat(e.field()).isEqualTo("payload");
                assertThat(e.getMessage())
                    .contains(String.valueOf(MessageSize.MAX_BYTES + 1))
                    .contains("message attributes")
                    .contains(String.valueOf(MessageSize.MAX_BYTES));
              });
      defaults.append(c, fits);
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertThat(singleRow().payloadBytes()).isEqualTo(atLimit.length());
    assertThat(atLimit.length()).isLessThan(MessageSize.MAX_BYTES);
  }

  @Test
  void
      append_withTheLimitRaisedForTheClaimCheck_acceptsAFourMebibytePayload_andRefusesPastTheCeiling()
          throws Exception {
    OutboxWriter large =
        OutboxWriter.builder()
            .tables(tables)
            .maxPayloadBytes(OutboxWriter.MAX_CLAIM_CHECK_PAYLOAD_BYTES)
            .build();
    String fourMiB = "\"" + "x".repeat(4 * 1024 * 1024 - 2) + "\"";
    String overCeiling = "\"" + "x".repeat(OutboxWriter.MAX_CLAIM_CHECK_PAYLOAD_BYTES - 1) + "\"";

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> large.append(c, event("r-1").payload(overCeiling).build()))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class,
              e -> {
                assertThat(e.field()).isEqualTo("payload");
                assertThat(e.getMessage()).contains("16777216").contains("at most 16777215");
              });
      large.append(c, event("r-1").payload(fourMiB).build());
      c.commit();
    }

    assertThat(singleRow().payloadBytes()).isEqualTo(4 * 1024 * 1024);
  }

  @Test
  void append_ofAPayloadTheClaimCheckWillCarry_refusesFiveHeaders_whichLeaveNoAttributeForItsSize()
      throws Exception {
    OutboxWriter large =
        OutboxWriter.builder()
            .tables(tables)
            .maxPayloadBytes(OutboxWriter.MAX_CLAIM_CHECK_PAYLOAD_BYTES)
            .build();
    String overSns = "\"" + "x".repeat(300 * 1024) + "\"";
    OutboxEvent.Builder fourHeaders = event("r-1").payload(overSns);
    for (int h = 0; h < OutboxMessageAttributes.MAX_HEADERS - 1; h++) {
      fourHeaders.header("h" + h, "v");
    }
    OutboxEvent fiveHeaders = fourHeaders.build().toBuilder().header("h4", "v").build();

    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> large.append(c, fiveHeaders))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class,
              e -> {
                assertThat(e.field()).isEqualTo("headers");
                assertThat(e.getMessage()).contains("at most 10 attributes", "at most 4 headers");
              });
      large.append(c, fourHeaders.build());
      c.commit();
    }
    assertThat(outboxCount()).isEqualTo(1);
  }

  @Test
  void append_withTheDefaultLimit_refusesAPayloadOver256KiB_pointingToTheClaimCheck()
      throws Exception {
    String overDefault = "\"" + "x".repeat(256 * 1024 - 1) + "\"";
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.append(c, event("r-1").payload(overDefault).build()))
          .isInstanceOf(InvalidOutboxEventException.class)
          .hasMessageContaining("at most 262144")
          .hasMessageContaining("maxPayloadBytes")
          .hasMessageContaining("claim-check");
      c.rollback();
    }
    assertThat(outboxCount()).isZero();
  }

  @Test
  void appendAll_whenOneEventIsOversized_writesNoneOfTheBatch() throws Exception {
    OutboxWriter small = OutboxWriter.builder().tables(tables).maxPayloadBytes(1024).build();
    List<OutboxEvent> batch = new ArrayList<>(events("r-1", 10, i -> true));
    batch.set(9, event("r-1").payload("\"" + "x".repeat(1024) + "\"").build());

    try (Connection c = transaction()) {
      assertThatThrownBy(() -> small.appendAll(c, batch))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class, e -> assertThat(e.field()).isEqualTo("payload"));
      c.commit();
    }

    assertThat(outboxCount()).isZero();
  }

  @Test
  void appendAll_whenOneEventIsNull_refusesNamingEventAndWritesNothing() throws Exception {
    List<OutboxEvent> batch = new ArrayList<>();
    batch.add(event("r-1").build());
    batch.add(null);

    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class, e -> assertThat(e.field()).isEqualTo("event"));
      c.commit();
    }

    assertThat(outboxCount()).isZero();
  }

  static Stream<Arguments> badEvents() {
    return Stream.of(
        bad("blank aggregateType", b -> b.aggregateType(" "), "aggregateType"),
        bad("blank aggregateId", b -> b.aggregateId(""), "aggregateId"),
        bad("blank eventType", b -> b.eventType(null), "eventType"),
        bad("control character in aggregateId", b -> b.aggregateId("r\u0000-1"), "aggregateId"),
        bad("invalid JSON", b -> b.payload("{\"id\": 1"), "payload"),
        bad("text after the JSON", b -> b.payload("{\"id\":1} {}"), "payload"),
        bad("header named by the outbox", b -> b.header("eventId", "x"), "headers.eventId"),
        bad("header with AWS prefix", b -> b.header("AWS.trace", "x"), "headers.AWS.trace"),
        bad("empty header value", b -> b.header("traceparent", ""), "headers.traceparent"),
        bad("control character in header", b -> b.header("h", "a\u0001"), "headers.h"),
        bad(
            "six headers",
            b -> b.headers(Map.of("a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "f", "6")),
            "headers"),
        bad("bad destination", b -> b.destination("arn:aws:sqs:x"), "destination"),
        bad("blank idempotency key", b -> b.idempotencyKey(" "), "idempotencyKey"));
  }

  private static Arguments bad(
      String description, UnaryOperator<OutboxEvent.Builder> change, String field) {
    return Arguments.of(description, change, field);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badEvents")
  void append_whenEventIsInvalid_refusesNamingTheFieldAndBusinessTransactionStillCommits(
      String description, UnaryOperator<OutboxEvent.Builder> change, String field)
      throws Exception {
    try (Connection c = transaction()) {
      insertReservation(c, "r-1");
      assertThatThrownBy(() -> writer.append(c, change.apply(event("r-1")).build()))
          .isInstanceOfSatisfying(
              InvalidOutboxEventException.class, e -> assertThat(e.field()).isEqualTo(field));
      c.commit();
    }

    assertThat(reservationIds()).containsExactly("r-1");
    assertThat(outboxCount()).isZero();
  }

  // --- schema ----------------------------------------------------------------------------------

  @Test
  void migrate_runTwice_changesNothingTheSecondTime() throws Exception {
    OutboxTables fresh = freshTables();
    try {
      OutboxSchema schema = OutboxSchema.create(fresh);
      try (Connection c = db.open()) {
        schema.migrate(c);
        assertThat(c.getAutoCommit()).as("auto-commit restored").isTrue();
      }
      OutboxEvent event = event("r-1").build();
      try (Connection c = transaction()) {
        OutboxWriter.builder().tables(fresh).build().append(c, event);
        c.commit();
      }

      schema.migrate(jdbi);

      assertThat(schemaVersions(fresh)).containsExactlyInAnyOrderElementsOf(everyVersion());
      assertThat(idsIn(fresh.messages())).containsExactly(event.id());
    } finally {
      db.dropTables(fresh);
    }
  }

  @Test
  @Timeout(120)
  void migrate_from4ThreadsAtOnceOnFreshPrefix_createsTheTablesOnce() throws Exception {
    OutboxTables fresh = freshTables();
    try {
      CyclicBarrier start = new CyclicBarrier(4);
      List<Callable<Void>> migrators = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        migrators.add(
            () -> {
              try (Connection c = db.open()) {
                start.await(30, TimeUnit.SECONDS);
                OutboxSchema.create(fresh).migrate(c);
              }
              return null;
            });
      }

      WriterTestSupport.runAll(migrators);

      assertThat(schemaVersions(fresh)).containsExactlyInAnyOrderElementsOf(everyVersion());
      OutboxEvent event = event("r-1").build();
      try (Connection c = transaction()) {
        OutboxWriter.builder().tables(fresh).build().append(c, event);
        c.commit();
      }
      assertThat(idsIn(fresh.messages())).containsExactly(event.id());
    } finally {
      db.dropTables(fresh);
    }
  }

  // --- inbox -----------------------------------------------------------------------------------

  @Test
  @Timeout(60)
  void processOnce_whenSecondDeliveryArrivesBeforeFirstCommits_doesTheWorkExactlyOnce()
      throws Exception {
    List<InboxResult> results = deliverTwiceConcurrently("m-1", true);

    assertThat(results).containsExactlyInAnyOrder(InboxResult.PROCESSED, InboxResult.SKIPPED);
    assertThat(hits("m-1")).isEqualTo(1);
    assertThat(inboxCount()).isEqualTo(1);
  }

  @Test
  @Timeout(60)
  void processOnce_whenFirstDeliveryRollsBack_secondDeliveryDoesTheWork() throws Exception {
    List<InboxResult> results = deliverTwiceConcurrently("m-1", false);

    // The first ran its work and then rolled it back; the second, having waited, ran it again.
    assertThat(results).containsExactly(InboxResult.PROCESSED, InboxResult.PROCESSED);
    assertThat(hits("m-1")).isEqualTo(1);
    assertThat(inboxCount()).isEqualTo(1);
  }

  /**
   * Delivers {@code messageId} in two transactions: the second arrives while the first, having done
   * its work, is still open; then the first commits or rolls back. Returns both results.
   */
  private List<InboxResult> deliverTwiceConcurrently(String messageId, boolean commitFirst)
      throws Exception {
    addCounter(messageId);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection first = transaction();
        Connection second = db.open()) {
      InboxResult firstResult =
          inbox.processOnce(first, "shop", messageId, () -> hit(first, messageId));

      long secondSession = sessionId(second);
      second.setAutoCommit(false);
      Future<InboxResult> secondResult =
          pool.submit(
              () -> {
                InboxResult r =
                    inbox.processOnce(second, "shop", messageId, () -> hit(second, messageId));
                second.commit();
                return r;
              });
      awaitLockWait(secondSession, secondResult);
      if (commitFirst) {
        first.commit();
      } else {
        first.rollback();
      }
      return List.of(firstResult, secondResult.get(30, TimeUnit.SECONDS));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void processOnce_whenRedeliveredAfterCommit_skipsTheWork() throws Exception {
    addCounter("m-1");

    InboxResult first = deliver("shop", "m-1");
    InboxResult again = deliver("shop", "m-1");

    assertThat(first).isEqualTo(InboxResult.PROCESSED);
    assertThat(again).isEqualTo(InboxResult.SKIPPED);
    assertThat(hits("m-1")).isEqualTo(1);
  }

  @Test
  void processOnce_withDifferentConsumers_processesForEach() throws Exception {
    addCounter("m-1");

    assertThat(deliver("shop", "m-1")).isEqualTo(InboxResult.PROCESSED);
    assertThat(deliver("billing", "m-1")).isEqualTo(InboxResult.PROCESSED);
    assertThat(deliver("billing", "m-1")).isEqualTo(InboxResult.SKIPPED);
    assertThat(deliver("shop", "m-1")).isEqualTo(InboxResult.SKIPPED);

    assertThat(hits("m-1")).isEqualTo(2);
    assertThat(inboxCount()).isEqualTo(2);
  }

  @Test
  void processOnce_whenWorkFails_recordsNothingSoARedeliveryProcessesIt() throws Exception {
    addCounter("m-1");

    assertThatThrownBy(
            () ->
                jdbi.useTransaction(
                    handle ->
                        inbox.processOnce(
                            handle,
                            "shop",
                            "m-1",
                            () -> {
                              hit(handle.getConnection(), "m-1");
                              throw new IllegalStateException("downstream unavailable");
                            })))
        .hasMessage("downstream unavailable");
    assertThat(inboxCount()).isZero();

    assertThat(deliver("shop", "m-1")).isEqualTo(InboxResult.PROCESSED);
    assertThat(hits("m-1")).isEqualTo(1);
  }

  @Test
  void processOnce_outsideTransaction_refusesAndDoesNotRunTheWork() throws Exception {
    addCounter("m-1");

    try (Connection c = db.open()) {
      assertThatThrownBy(() -> inbox.processOnce(c, "shop", "m-1", () -> hit(c, "m-1")))
          .isInstanceOf(TransactionRequiredException.class);
    }
    jdbi.useHandle(
        handle ->
            assertThatThrownBy(
                    () ->
                        inbox.processOnce(
                            handle, "shop", "m-1", () -> hit(handle.getConnection(), "m-1")))
                .isInstanceOf(TransactionRequiredException.class));

    assertThat(hits("m-1")).isZero();
    assertThat(inboxCount()).isZero();
  }

  /** Delivers a message in its own transaction through a Jdbi handle, bumping its counter. */
  private InboxResult deliver(String consumer, String messageId) throws SQLException {
    return jdbi.inTransaction(
        handle ->
            inbox.processOnce(
                handle, consumer, messageId, () -> hit(handle.getConnection(), messageId)));
  }

  // --- helpers ---------------------------------------------------------------------------------

  private static OutboxEvent.Builder event(String reservationId) {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId(reservationId)
        .eventType("reservation.created")
        .payload("{\"reservationId\":\"" + reservationId + "\",\"seats\":2}");
  }

  /** An event with every field set, and a payload whose spacing and key order must survive. */
  private static OutboxEvent fullEvent(String reservationId) {
    return event(reservationId)
        .payload(
            "  {\"z\" : 1.50,\n\t\"a\":[ 1e3, null ],  \"caf\u00e9\": \"\uD83D\uDE00\","
                + " \"esc\":\"\\u0000\\\"\" }\n")
        .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .header("tenant", "acme \u00e9")
        .destination(TOPIC)
        .idempotencyKey("reserve-" + reservationId)
        .occurredAt(Instant.parse("2024-02-29T23:59:59.123456789Z"))
        .build();
  }

  /** {@code n} events for one reservation; those for which {@code keyed} holds get a key. */
  private static List<OutboxEvent> events(String reservationId, int n, IntPredicate keyed) {
    String run = Integer.toHexString(ThreadLocalRandom.current().nextInt());
    List<OutboxEvent> events = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      OutboxEvent.Builder b = event(reservationId).destination(i % 2 == 0 ? TOPIC : QUEUE);
      if (keyed.test(i)) {
        b.idempotencyKey(reservationId + "-" + run + "-" + i);
      }
      events.add(b.build());
    }
    return events;
  }

  private static Set<UUID> idsOf(List<OutboxEvent> events) {
    return events.stream().map(OutboxEvent::id).collect(Collectors.toSet());
  }

  private void assertStoredExactly(OutboxEvent event, StoredRow row) throws Exception {
    assertThat(row.id()).isEqualTo(event.id());
    assertThat(row.aggregateType()).isEqualTo("reservation");
    assertThat(row.aggregateId()).isEqualTo(event.aggregateId());
    assertThat(row.eventType()).isEqualTo("reservation.created");
    assertThat(row.payload()).isEqualTo(event.payload());
    assertThat(row.payloadBytes())
        .isEqualTo(event.payload().getBytes(StandardCharsets.UTF_8).length);
    assertThat(JSON.readValue(row.headers(), new TypeReference<LinkedHashMap<String, String>>() {}))
        .containsExactly(
            Map.entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            Map.entry("tenant", "acme \u00e9"));
    assertThat(row.destination()).isEqualTo(TOPIC);
    assertThat(row.idempotencyKey()).isEqualTo("reserve-" + event.aggregateId());
    assertThat(row.occurredAt()).isEqualTo(Instant.parse("2024-02-29T23:59:59.123456Z"));
    assertThat(row.createdAt()).isEqualTo(Instant.parse("2031-05-06T07:08:09.123456Z"));
    assertThat(row.status()).isEqualTo("PENDING");
    assertThat(row.retryCount()).isZero();
    assertThat(row.replayCount()).isZero();
    assertThat(row.nextAttemptAt()).isEqualTo(row.createdAt());
    assertThat(row.lockedBy()).isNull();
    assertThat(row.lockedUntil()).isNull();
    assertThat(row.lastErrorCode()).isNull();
    assertThat(row.firstFailedAt()).isNull();
    assertThat(row.sentAt()).isNull();
  }

  /** An outbox row as stored, read without the library's own mapping code. */
  record StoredRow(
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      long payloadBytes,
      String headers,
      String destination,
      String idempotencyKey,
      Instant occurredAt,
      Instant createdAt,
      String status,
      int retryCount,
      int replayCount,
      Instant nextAttemptAt,
      String lockedBy,
      Instant lockedUntil,
      String lastErrorCode,
      Instant firstFailedAt,
      Instant sentAt) {}

  private List<StoredRow> outboxRows() throws SQLException {
    List<StoredRow> rows = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT o.*, OCTET_LENGTH(payload) AS payload_bytes FROM "
                    + tables.messages()
                    + " o ORDER BY id")) {
      while (rs.next()) {
        rows.add(
            new StoredRow(
                UUID.fromString(rs.getString("id")),
                rs.getString("aggregate_type"),
                rs.getString("aggregate_id"),
                rs.getString("event_type"),
                rs.getString("payload"),
                rs.getLong("payload_bytes"),
                rs.getString("headers"),
                rs.getString("destination"),
                rs.getString("idempotency_key"),
                instant(rs, "occurred_at"),
                instant(rs, "created_at"),
                rs.getString("status"),
                rs.getInt("retry_count"),
                rs.getInt("replay_count"),
                instant(rs, "next_attempt_at"),
                rs.getString("locked_by"),
                instant(rs, "locked_until"),
                rs.getString("last_error_code"),
                instant(rs, "first_failed_at"),
                instant(rs, "sent_at")));
      }
    }
    return rows;
  }

  private StoredRow singleRow() throws SQLException {
    List<StoredRow> rows = outboxRows();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private Instant instant(ResultSet rs, String column) throws SQLException {
    if (db.dialect() == SqlDialect.POSTGRESQL) {
      OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
      return t == null ? null : t.toInstant();
    }
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }

  private Set<UUID> storedIds() throws SQLException {
    return idsIn(tables.messages());
  }

  private Set<UUID> idsIn(String table) throws SQLException {
    Set<UUID> ids = new HashSet<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id FROM " + table)) {
      while (rs.next()) {
        assertThat(ids.add(UUID.fromString(rs.getString(1)))).as("distinct ids").isTrue();
      }
    }
    return ids;
  }

  private long outboxCount() throws SQLException {
    return count("SELECT count(*) FROM " + tables.messages());
  }

  private long keyCount() throws SQLException {
    return count("SELECT count(idempotency_key) FROM " + tables.messages());
  }

  private long inboxCount() throws SQLException {
    return count("SELECT count(*) FROM " + tables.inbox());
  }

  private long count(String sql) throws SQLException {
    return WriterTestSupport.count(db, sql);
  }

  /** The version of every migration the library ships. */
  private static List<String> everyVersion() {
    return OutboxSchema.MIGRATIONS.stream().map(OutboxSchema::version).toList();
  }

  private List<String> schemaVersions(OutboxTables t) throws SQLException {
    List<String> versions = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT version FROM " + t.schemaHistory())) {
      while (rs.next()) {
        versions.add(rs.getString(1));
      }
    }
    return versions;
  }

  private List<String> reservationIds() throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id FROM " + reservations)) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private void insertReservation(Connection c, String id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + reservations + " (id, shop) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setString(2, "shop-1");
      ps.executeUpdate();
    }
  }

  private void insertReservation(Handle handle, String id) {
    handle.execute("INSERT INTO " + reservations + " (id, shop) VALUES (?, ?)", id, "shop-1");
  }

  private void addCounter(String name) throws SQLException {
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO " + counters + " (name, hits) VALUES (?, 0)")) {
      ps.setString(1, name);
      ps.executeUpdate();
    }
  }

  /** The business effect of a delivery: one more hit on the message's counter. */
  private void hit(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + counters + " SET hits = hits + 1 WHERE name = ?")) {
      ps.setString(1, name);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  private long hits(String name) throws SQLException {
    return count("SELECT hits FROM " + counters + " WHERE name = '" + name + "'");
  }

  private void commit(OutboxEvent event) throws SQLException {
    try (Connection c = transaction()) {
      writer.append(c, event);
      c.commit();
    }
  }

  /** A new connection with a transaction open. */
  private Connection transaction() throws SQLException {
    Connection c = db.open();
    c.setAutoCommit(false);
    return c;
  }

  private OutboxTables freshTables() {
    return OutboxTables.withPrefix(
        "t_mig_"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xFFFFF))
            + "_");
  }

  /** Waits until {@code session} is blocked on a lock; fails if {@code waiter} ends first. */
  private void awaitLockWait(long session, Future<?> waiter) throws Exception {
    long deadline = System.nanoTime() + LOCK_WAIT_LIMIT.toNanos();
    try (Connection observer = db.open()) {
      while (!isWaitingForLock(observer, session)) {
        if (waiter.isDone()) {
          fail("finished without waiting for the other transaction: " + waiter.get());
        }
        if (System.nanoTime() > deadline) {
          fail(
              "session %s did not wait for a lock within %s; sessions:%n%s",
              session, LOCK_WAIT_LIMIT, describeSessions(observer));
        }
        Thread.sleep(LOCK_POLL_INTERVAL.toMillis());
      }
    }
  }

  /** The rows of {@code sql}, one line each, columns separated by " | ". */
  static String describe(Connection observer, String sql) throws SQLException {
    StringBuilder text = new StringBuilder();
    try (Statement st = observer.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= columns; i++) {
          text.append(i == 1 ? "" : " | ").append(rs.getString(i));
        }
        text.append('\n');
      }
    }
    return text.toString();
  }
}
