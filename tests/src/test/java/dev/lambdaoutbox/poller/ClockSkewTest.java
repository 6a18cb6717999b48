package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.StatementLog;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.io.OutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The hosts' clocks decide nothing about when a row is due or how old it is: the writer dates rows
 * with the database's clock and the poller compares them with the same clock, read through its
 * store ({@link DatabaseClock}), so an event is due at once, leased for its lease, and as old as
 * the database says, however far the application's and the poller's host clocks are from the
 * database's (here 3 s, each way). Over JDBC on PostgreSQL and MariaDB, and over the RDS Data API
 * (the test bed's emulator, serving the PostgreSQL the rows are written to).
 */
class ClockSkewTest {
  private static final Duration SKEW = Duration.ofSeconds(3);

  /**
   * A reading of the database's clock is at most a round trip ahead of it: generous beside one on a
   * loaded test bed, small beside the skew.
   */
  private static final Duration TOLERANCE = Duration.ofSeconds(1);

  private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

  /** A database and how the poller's store reaches it. */
  record Carrier(String name, TestDatabase db, boolean dataApi) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Carrier> carriers() {
    return Stream.of(
        new Carrier("PostgreSQL over JDBC", TestEndpoints.postgres(), false),
        new Carrier("MariaDB over JDBC", TestEndpoints.mysql(), false),
        new Carrier("PostgreSQL over the Data API", TestEndpoints.postgres(), true));
  }

  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  private OutboxTables tables;

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable r : resources.reversed()) {
      r.close();
    }
    if (tables != null) {
      db.dropTables(tables);
    }
  }

  /**
   * The application's host 3 s ahead of the database (its writer reads no clock of its own) and the
   * poller's 3 s behind: the event is claimed and published by the first run after the commit, not
   * 6 s later when the poller's own clock would reach the writer's.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("carriers")
  void anEventFromAHostAhead_isDueAtOnce_forAPollerOnAHostBehind(Carrier carrier) throws Exception {
    SqlExecutor executor = open(carrier, "skewdue");
    DatabaseClock reference = DatabaseClock.of(executor);
    DatabaseClock pollersClock = DatabaseClock.of(executor, hostClock(SKEW.negated()));

    Instant before = reference.instant();
    UUID id = append(OutboxWriter.builder().tables(tables).build());
    Instant after = reference.instant();

    Instant[] stamps = stamps(id);
    assertThat(stamps[0]).as("created_at: the database's time of the INSERT").isEqualTo(stamps[1]);
    assertThat(stamps[0])
        .isBetween(before.minus(TOLERANCE), after.plus(TOLERANCE))
        .isBefore(before.plus(SKEW).minus(TOLERANCE));

    PollSummary summary;
    try (EmbeddedPoller poller =
        EmbeddedPoller.builder(config(carrier), store(executor))
            .withoutBroker()
            .clock(pollersClock)
            .logger(
                new JsonLogger(
                    "skew", ClockSkewTest.class, JsonLogger.Level.WARN, DISCARD, Clock.systemUTC()))
            .metrics(new EmfMetrics("LambdaOutbox", "skew", DISCARD, Clock.systemUTC()))
            .build()) {
      summary = poller.run(() -> 60_000, "skew-" + UUID.randomUUID());
    }

    assertThat(summary.claimed()).as("claimed by the first run").isEqualTo(1);
    assertThat(summary.published()).isEqualTo(1);
    assertThat(pollersClock.offset())
        .as("the database's clock seen from a host 3 s behind")
        .isBetween(SKEW.minus(TOLERANCE), SKEW.plus(TOLERANCE));
  }

  /**
   * A row written with SQL of one's own, created 90 s ago by the database's clock and due by its
   * columns' defaults, read by a poller whose host is 3 s ahead: the oldest-age gauge says 90 s,
   * not 93; the row is due at once; its lease runs for the lease on the database's clock.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("carriers")
  void theOldestAge_andALease_areTheDatabasesTimes_forAPollerOnAHostAhead(Carrier carrier)
      throws Exception {
    SqlExecutor executor = open(carrier, "skewage");
    DatabaseClock reference = DatabaseClock.of(executor);
    DatabaseClock pollersClock = DatabaseClock.of(executor, hostClock(SKEW));
    OutboxStore store = store(executor);

    Instant inserting = reference.instant();
    UUID id = insertCreatedSecondsAgo(90);
    Backlog backlog = store.backlog(pollersClock.instant());
    Duration sinceInsert = Duration.between(inserting, reference.instant());
    assertThat(backlog.oldestUnpublishedAge())
        .isBetween(
            Duration.ofSeconds(90).minus(TOLERANCE),
            Duration.ofSeconds(90).plus(sinceInsert).plus(TOLERANCE));

    Duration lease = Duration.ofSeconds(60);
    Instant claiming = reference.instant();
    Claim claim = store.claim("poller:skew", 10, pollersClock.instant(), lease);
    Instant claimed = reference.instant();
    assertThat(claim.messages()).extracting(OutboxMessage::id).containsExactly(id);
    assertThat(lockedUntil(id).minus(lease))
        .as("the lease ran from the claim, on the database's clock")
        .isBetween(claiming.minus(TOLERANCE), claimed.plus(TOLERANCE));
  }

  /**
   * An event written to wait 5 s, by the database's clock (the writer adds the delay to the
   * INSERT's time): a poller run on the database's clock a second before that time publishes
   * nothing, and the run at that time publishes it to the real queue. The poller's host clock is
   * moved by hand, and the database's clock seen through it ({@link DatabaseClock}: the host's plus
   * the offset it read) moves with it, so nothing sleeps.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("carriers")
  void anEventDueIn5s_isNotPublishedBeforeItsTime_andIsByARunAtItsTime(Carrier carrier)
      throws Exception {
    SqlExecutor executor = open(carrier, "skewlater");
    MutableClock host = new MutableClock(Instant.now());
    DatabaseClock pollersClock = DatabaseClock.of(executor, host);
    SqsClient sqs = TestEndpoints.aws().sqs();
    SnsClient sns = TestEndpoints.aws().sns();
    resources.add(sqs);
    resources.add(sns);
    String queue =
        sqs.createQueue(r -> r.queueName("due-" + UUID.randomUUID().toString().substring(0, 8)))
            .queueUrl();
    resources.add(() -> sqs.deleteQueue(r -> r.queueUrl(queue)));

    UUID id =
        append(OutboxWriter.builder().tables(tables).build(), b -> b.delay(Duration.ofSeconds(5)));
    Instant[] times = times(id, "created_at", "not_before");
    assertThat(times[1]).as("due 5 s after the INSERT").isEqualTo(times[0].plusSeconds(5));

    try (EmbeddedPoller poller =
        EmbeddedPoller.builder(config(carrier, queue), store(executor))
            .brokers(sns, sqs)
            .clock(pollersClock)
            .logger(
                new JsonLogger(
                    "due", ClockSkewTest.class, JsonLogger.Level.WARN, DISCARD, Clock.systemUTC()))
            .metrics(new EmfMetrics("LambdaOutbox", "due", DISCARD, Clock.systemUTC()))
            .build()) {
      host.advance(Duration.between(pollersClock.instant(), times[1]).minusSeconds(1));
      PollSummary early = poller.run(() -> 60_000, "due-" + UUID.randomUUID());
      assertThat(early.claimed()).as("a second before its time").isZero();

      host.advance(Duration.ofSeconds(1));
      assertThat(pollersClock.instant()).isEqualTo(times[1]);
      PollSummary onTime = poller.run(() -> 60_000, "due-" + UUID.randomUUID());
      assertThat(onTime.published()).as("at its time").isEqualTo(1);
    }
    List<String> received =
        sqs
            .receiveMessage(r -> r.queueUrl(queue).waitTimeSeconds(5).messageAttributeNames("All"))
            .messages()
            .stream()
            .map(m -> m.messageAttributes().get("eventId").stringValue())
            .toList();
    assertThat(received).containsExactly(id.toString());
  }

  /**
   * What the database's clock costs: one statement at the first reading, none while the reading is
   * less than five minutes old on the host's clock, one more after that or when the host's clock
   * went back; between readings it follows the host's clock (here a hand-moved one, a thousand days
   * behind the database's).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("carriers")
  void theDatabasesClock_isReadOnce_andAgainEveryFiveMinutesOfTheHostsClock(Carrier carrier) {
    StatementLog statements = new StatementLog(open(carrier, "skewreads"));
    Instant start = Instant.now().minus(Duration.ofDays(1000));
    MutableClock host = new MutableClock(start);
    DatabaseClock clock = DatabaseClock.of(statements, host);
    DatabaseClock reference = DatabaseClock.of(open(carrier, "skewref"));

    Instant first = clock.instant();
    assertThat(statements.statements()).hasSize(1);
    assertThat(Duration.between(reference.instant(), first).abs()).isLessThan(TOLERANCE);
    assertThat(clock.offset())
        .isBetween(Duration.ofDays(1000), Duration.ofDays(1000).plusMinutes(1));

    host.advance(Duration.ofMinutes(4));
    clock.sync();
    assertThat(clock.instant()).isEqualTo(first.plus(Duration.ofMinutes(4)));
    assertThat(statements.statements()).as("a reading under five minutes old").hasSize(1);

    host.advance(Duration.ofMinutes(1));
    clock.sync();
    assertThat(statements.statements()).as("five minutes old: read again").hasSize(2);
    assertThat(Duration.between(reference.instant(), clock.instant()).abs())
        .as("the database's time again, not the hand-moved host's")
        .isLessThan(TOLERANCE);

    host.advance(Duration.ofSeconds(-1));
    clock.sync();
    assertThat(statements.statements()).as("the host's clock went back").hasSize(3);
  }

  // ---- the parts

  /** Creates the tables (once); an executor of the poller's store over the carrier. */
  private SqlExecutor open(Carrier carrier, String label) {
    db = carrier.db();
    if (tables == null) {
      tables = db.createTables(label);
    }
    if (carrier.dataApi()) {
      RdsDataClient client = TestEndpoints.dataApi().client();
      resources.add(client);
      return TestEndpoints.dataApi().executor(client).build();
    }
    JdbcConnectionProvider connections = Stores.connections(db, tables);
    resources.add(connections);
    return JdbcExecutor.of(connections);
  }

  private OutboxStore store(SqlExecutor executor) {
    return OutboxStore.builder(executor).tables(tables).build();
  }

  private PollerConfig config(Carrier carrier) {
    return config(carrier, "https://sqs.us-east-1.amazonaws.com/000000000000/skew");
  }

  private PollerConfig config(Carrier carrier, String queue) {
    return PollerConfig.fromEnvironment(
        Map.of(
            "OUTBOX_JDBC_URL",
            carrier.db().jdbcUrl(),
            "OUTBOX_DB_USER",
            carrier.db().user(),
            "OUTBOX_DB_PASSWORD",
            carrier.db().password(),
            "OUTBOX_TABLE_PREFIX",
            tables.prefix(),
            "OUTBOX_PIPELINE",
            "false",
            PollerVariables.DEFAULT_DESTINATION.name(),
            queue));
  }

  /** The system clock moved by {@code skew}: a host whose clock is that far from the database's. */
  private static Clock hostClock(Duration skew) {
    return Clock.offset(Clock.systemUTC(), skew);
  }

  /** One event, appended and committed by {@code writer} as an application does. */
  private UUID append(OutboxWriter writer) throws Exception {
    return append(writer, b -> b);
  }

  /** One event, built further by {@code more}, appended and committed by {@code writer}. */
  private UUID append(OutboxWriter writer, UnaryOperator<OutboxEvent.Builder> more)
      throws Exception {
    OutboxEvent event =
        more.apply(
                OutboxEvent.builder()
                    .aggregateType("order")
                    .aggregateId("o-1")
                    .eventType("order.created")
                    .payload("{\"id\":1}"))
            .build();
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      writer.append(c, event);
      c.commit();
    }
    return event.id();
  }

  /** An outbox row written with SQL of one's own, created (and free to go) {@code seconds} ago. */
  private UUID insertCreatedSecondsAgo(int seconds) throws Exception {
    UUID id = UUID.randomUUID();
    String ago =
        db.dialect() == SqlDialect.POSTGRESQL
            ? "statement_timestamp() - interval '" + seconds + " seconds'"
            : "UTC_TIMESTAMP(6) - INTERVAL " + seconds + " SECOND";
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + tables.messages()
                    + " (id, aggregate_type, aggregate_id, event_type, payload, created_at,"
                    + " not_before) VALUES ("
                    + (db.dialect() == SqlDialect.POSTGRESQL ? "CAST(? AS uuid)" : "?")
                    + ", 'order', 'o-2', 'order.created', '{}', "
                    + ago
                    + ", "
                    + ago
                    + ")")) {
      ps.setString(1, id.toString());
      ps.executeUpdate();
    }
    return id;
  }

  /** The row's created_at and next_attempt_at. */
  private Instant[] stamps(UUID id) throws Exception {
    return times(id, "created_at", "next_attempt_at");
  }

  private Instant lockedUntil(UUID id) throws Exception {
    return times(id, "locked_until")[0];
  }

  private Instant[] times(UUID id, String... columns) throws Exception {
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT "
                    + String.join(", ", columns)
                    + " FROM "
                    + tables.messages()
                    + " WHERE id = "
                    + (db.dialect() == SqlDialect.POSTGRESQL ? "CAST(? AS uuid)" : "?"))) {
      ps.setString(1, id.toString());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("row %s", id).isTrue();
        Instant[] times = new Instant[columns.length];
        for (int i = 0; i < columns.length; i++) {
          times[i] = JdbcValues.getInstant(rs, columns[i], db.dialect());
        }
        return times;
      }
    }
  }
}
