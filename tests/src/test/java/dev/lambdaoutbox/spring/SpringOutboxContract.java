package dev.lambdaoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.PollerWaker;
import dev.lambdaoutbox.writer.TransactionRequiredException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * {@link TransactionalOutbox} in a real Spring Boot application, built by {@link
 * OutboxAutoConfiguration} from {@code lambda-outbox.*} properties alone, on a real database with
 * Boot's own DataSource (HikariCP) and transaction manager, waking a Lambda {@code Invoke} stand-in
 * after commit. A reservations service appends in its {@code @Transactional} methods. One subclass
 * per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SpringOutboxContract {
  /** Longer than the waker's interval and a loaded machine's thread hand-over. */
  private static final Duration QUIET = Duration.ofMillis(500);

  abstract TestDatabase database();

  private TestDatabase db;
  private OutboxTables tables;
  private String reservationsTable;
  private LambdaInvokeStandIn lambda;
  private ConfigurableApplicationContext app;
  private Reservations reservations;
  private TransactionalOutbox outbox;
  private PollerWaker waker;
  private MeterRegistry meters;

  @BeforeAll
  void start() throws Exception {
    db = database();
    String prefix =
        "spring_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xFFFF)) + "_";
    tables = OutboxTables.withPrefix(prefix);
    reservationsTable = prefix + "reservations";
    db.jdbi()
        .useHandle(
            h ->
                h.execute(
                    "CREATE TABLE "
                        + reservationsTable
                        + " (id varchar(64) PRIMARY KEY, shop_id varchar(64) NOT NULL, guests int NOT NULL)"));
    lambda = new LambdaInvokeStandIn(LambdaInvokeStandIn.Answer.ACCEPTED);
    app =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                Map.of(
                    "spring.datasource.url",
                    db.jdbcUrl(),
                    "spring.datasource.username",
                    db.user(),
                    "spring.datasource.password",
                    db.password(),
                    "lambda-outbox.table-prefix",
                    prefix,
                    "lambda-outbox.schema.migrate",
                    "true",
                    "lambda-outbox.waker.function-name",
                    "outbox-poller:live",
                    "lambda-outbox.waker.interval",
                    "10ms",
                    // A wake-up per commit: what is under test is when Spring's commit wakes.
                    "lambda-outbox.waker.quiet-period",
                    "0s",
                    "test.lambda-endpoint",
                    lambda.endpoint().toString(),
                    "test.reservations-table",
                    reservationsTable))
            .run();
    reservations = app.getBean(Reservations.class);
    outbox = app.getBean(TransactionalOutbox.class);
    waker = app.getBean(PollerWaker.class);
    meters = app.getBean(MeterRegistry.class);
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
    if (lambda != null) {
      lambda.close();
    }
    if (tables != null) {
      db.dropTables(tables);
      db.jdbi().useHandle(h -> h.execute("DROP TABLE IF EXISTS " + reservationsTable));
    }
  }

  @Test
  void aCommittedTransaction_writesTheEventWithTheReservation_andWakesThePollerOnceAfterCommit()
      throws Exception {
    settle();
    long requested = waker.counts().requested();
    int calls = lambda.calls().size();

    String id = reservations.reserve("sushi-ya", 2, 2);

    assertThat(outboxRows(id)).isEqualTo(2);
    assertThat(reservationRows(id)).isEqualTo(1);
    assertThat(waker.counts().requested())
        .as("one wake-up for the transaction")
        .isEqualTo(requested + 1);
    awaitCalls(calls + 1);
    Thread.sleep(QUIET.toMillis());
    assertThat(lambda.calls()).hasSize(calls + 1);
    LambdaInvokeStandIn.Call call = lambda.calls().get(calls);
    assertThat(call.functionName()).isEqualTo("outbox-poller:live");
    assertThat(call.invocationType()).isEqualTo("Event");
  }

  @Test
  void aRolledBackTransaction_leavesNoEventAndNoWakeUp() throws Exception {
    settle();
    long requested = waker.counts().requested();
    int calls = lambda.calls().size();
    String id = UUID.randomUUID().toString();

    assertThatThrownBy(() -> reservations.reserveThenFail(id))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shop is full");

    assertThat(outboxRows(id)).isZero();
    assertThat(reservationRows(id)).isZero();
    Thread.sleep(QUIET.toMillis());
    assertThat(waker.counts().requested()).isEqualTo(requested);
    assertThat(lambda.calls()).hasSize(calls);
  }

  @Test
  void appendOutsideATransaction_isRefused_andWritesNothing() {
    String id = UUID.randomUUID().toString();

    assertThatThrownBy(() -> outbox.append(event(id)))
        .isInstanceOf(TransactionRequiredException.class)
        .hasMessageContaining("no Spring transaction is active")
        .hasMessageContaining("@Transactional");

    assertThat(outboxRows(id)).isZero();
  }

  @Test
  void appendInAReadOnlyTransaction_isRefused_andWritesNothing() {
    String id = UUID.randomUUID().toString();

    assertThatThrownBy(() -> reservations.appendReadOnly(id))
        .isInstanceOf(TransactionRequiredException.class)
        .hasMessageContaining("read-only");

    assertThat(outboxRows(id)).isZero();
  }

  @Test
  void anInnerRequiresNewTransaction_commitsAndWakesOnItsOwn_whenTheOuterOneRollsBack()
      throws Exception {
    long requested = waker.counts().requested();
    String outer = UUID.randomUUID().toString();
    String inner = UUID.randomUUID().toString();
    TransactionTemplate tx = app.getBean(TransactionTemplate.class);

    assertThatThrownBy(
            () ->
                tx.executeWithoutResult(
                    status -> {
                      outbox.append(event(outer));
                      reservations.appendInNewTransaction(inner);
                      throw new IllegalStateException("outer fails");
                    }))
        .hasMessage("outer fails");

    assertThat(outboxRows(outer)).isZero();
    assertThat(outboxRows(inner)).isEqualTo(1);
    assertThat(waker.counts().requested()).isEqualTo(requested + 1);
  }

  @Test
  void theMeters_countAppendsRefusalsAndWakeUps() {
    double appended = counter(OutboxMeters.APPENDED);
    double refused = counter(OutboxMeters.REFUSED);
    double wakeUps =
        meters.get(OutboxMeters.WAKE_UPS).tag("outcome", "requested").functionCounter().count();

    reservations.reserve("ramen-ya", 3, 1);
    assertThatThrownBy(() -> outbox.append(event(UUID.randomUUID().toString())))
        .isInstanceOf(TransactionRequiredException.class);

    assertThat(counter(OutboxMeters.APPENDED)).isEqualTo(appended + 1);
    assertThat(counter(OutboxMeters.REFUSED)).isEqualTo(refused + 1);
    assertThat(
            meters.get(OutboxMeters.WAKE_UPS).tag("outcome", "requested").functionCounter().count())
        .isEqualTo(wakeUps + 1);
  }

  private double counter(String name) {
    return meters.get(name).functionCounter().count();
  }

  /**
   * Waits until no wake-up is pending: a commit's wake-up has reached the stand-in (the waker's
   * thread is past its first, slow call) and no other has followed for {@link #QUIET}.
   */
  private void settle() throws InterruptedException {
    int before = lambda.calls().size();
    reservations.reserve("settle", 1, 1);
    awaitCalls(before + 1);
    int seen;
    do {
      seen = lambda.calls().size();
      Thread.sleep(QUIET.toMillis());
    } while (lambda.calls().size() != seen);
  }

  private void awaitCalls(int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (lambda.calls().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(lambda.calls()).as("wake-ups sent").hasSizeGreaterThanOrEqualTo(count);
  }

  private int outboxRows(String aggregateId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM " + tables.messages() + " WHERE aggregate_id = ?")
                    .bind(0, aggregateId)
                    .mapTo(Integer.class)
                    .one());
  }

  private int reservationRows(String id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM " + reservationsTable + " WHERE id = ?")
                    .bind(0, id)
                    .mapTo(Integer.class)
                    .one());
  }

  static OutboxEvent event(String reservationId) {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId(reservationId)
        .eventType("reservation.created")
        .payload("{\"id\":\"" + reservationId + "\"}")
        .build();
  }

  /** The application: Boot's auto-configuration, a Lambda client for the stand-in, the service. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    LambdaClient lambdaClient(@Value("${test.lambda-endpoint}") String endpoint) {
      return LambdaInvokeStandIn.client(java.net.URI.create(endpoint));
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean
    Reservations reservations(
        JdbcTemplate jdbc,
        TransactionalOutbox outbox,
        @Value("${test.reservations-table}") String table) {
      return new Reservations(jdbc, outbox, table);
    }
  }

  /** A service as an application writes one: its rows with JdbcTemplate, its events alongside. */
  static class Reservations {
    private final JdbcTemplate jdbc;
    private final TransactionalOutbox outbox;
    private final String table;

    Reservations(JdbcTemplate jdbc, TransactionalOutbox outbox, String table) {
      this.jdbc = jdbc;
      this.outbox = outbox;
      this.table = table;
    }

    /** Inserts a reservation and appends {@code events} events about it. */
    @Transactional
    public String reserve(String shopId, int guests, int events) {
      String id = UUID.randomUUID().toString();
      jdbc.update(
          "INSERT INTO " + table + " (id, shop_id, guests) VALUES (?, ?, ?)", id, shopId, guests);
      for (int i = 0; i < events; i++) {
        outbox.append(event(id));
      }
      return id;
    }

    /** Inserts and appends, then fails: the transaction rolls back. */
    @Transactional
    public void reserveThenFail(String id) {
      jdbc.update("INSERT INTO " + table + " (id, shop_id, guests) VALUES (?, 'izakaya', 40)", id);
      outbox.appendAll(List.of(event(id)));
      throw new IllegalStateException("shop is full");
    }

    @Transactional(readOnly = true)
    public void appendReadOnly(String id) {
      outbox.append(event(id));
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void appendInNewTransaction(String id) {
      outbox.append(event(id));
    }
  }
}
