package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.CredentialsSource;
import dev.lambdaoutbox.store.config.DatabaseCredentials;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.OutboxStoreException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The store contract over JDBC, plus what the JDBC executor's one connection must survive: being
 * killed under the store (between calls: run once more on a fresh connection; within one: fail it),
 * a wrong password, a rotated secret.
 */
abstract class JdbcOutboxStoreContract extends OutboxStoreContract {
  /** SQL that returns the server-side id of the session running it. */
  abstract String sessionIdSql();

  /** SQL, run from another session, that kills the session with this id. */
  abstract String killSessionSql(long sessionId);

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }

  // ---- the result budget

  @Test
  final void claim_withASmallFunctionsBudget_takesNoMoreRowBytesThanItAllows_andReachesEveryRow() {
    long budget = DatabaseSettings.resultBudget(128); // 4 MiB
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String payload = "{\"blob\":\"" + "x".repeat(200 * 1024) + "\",\"n\":" + i + "}";
      written.addAll(
          append(T0.plusSeconds(i), event("big-" + i).toBuilder().payload(payload).build()));
    }
    OutboxStore store =
        OutboxStore.builder(JdbcExecutor.of(connections(ConnectionLimits.defaults()), budget))
            .tables(tables)
            .build();

    List<UUID> claimed = new ArrayList<>();
    List<Integer> batches = new ArrayList<>();
    for (int round = 0; round < 10; round++) {
      Claim batch = store.claim("a", 1_000, T0.plusSeconds(60), LEASE);
      if (batch.messages().isEmpty()) {
        break;
      }
      assertThat(batch.messages().stream().mapToLong(OutboxMessage::payloadBytes).sum())
          .isLessThanOrEqualTo(budget);
      batches.add(batch.messages().size());
      claimed.addAll(ids(batch));
      assertThat(batch.stoppedAtBudget())
          .as("the claim says whether it stopped at its budget with due rows left")
          .isEqualTo(claimed.size() < written.size());
    }

    assertThat(claimed).containsExactlyElementsOf(written);
    assertThat(batches.get(0)).as("rows in the first claim").isBetween(10, 20);
  }

  @Test
  final void claim_ofOneRowLargerThanTheBudget_takesItAlone_thenTheRest() {
    OutboxEvent huge = event("huge");
    append(T0, huge);
    List<UUID> rest = append(T0.plusSeconds(1), event("a1"), event("a2"));
    writeHugePayload(tables.messages(), huge.id());
    OutboxStore store =
        OutboxStore.builder(JdbcExecutor.of(connections(ConnectionLimits.defaults()), 1024 * 1024))
            .tables(tables)
            .build();

    Claim first = store.claim("a", 10, T0.plusSeconds(1), LEASE);
    Claim second = store.claim("a", 10, T0.plusSeconds(1), LEASE);

    assertThat(ids(first)).containsExactly(huge.id());
    assertThat(first.stoppedAtBudget()).isTrue();
    assertThat(second.stoppedAtBudget()).isFalse();
    assertThat(first.messages().get(0).payloadBytes()).isEqualTo(4L * HUGE_CHARS + 11);
    assertThat(Utf8.length(first.messages().get(0).payload())).isLessThanOrEqualTo(256 * 1024);
    assertThat(ids(second)).containsExactlyElementsOf(rest);
  }

  // ---- the connection

  @Test
  final void connection_killedUnderTheStore_isReplacedAndTheStoreCarriesOn() throws Exception {
    JdbcConnectionProvider connections = connections(limitsCheckingEveryUse());
    OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
    UUID id = append(T0);
    long session = sessionId(connections);

    kill(session);

    assertThat(ids(store.claim("a", 10, T0, LEASE))).containsExactly(id);
    assertThat(sessionId(connections)).isNotEqualTo(session);
  }

  /**
   * The session dies while the connection sits unused between invocations (the server ended it; a
   * frozen sandbox's connection dies the same way): the next call finds out on its first statement,
   * and runs once more on a fresh connection instead of failing.
   */
  @Test
  final void connection_killedBetweenCalls_theNextCallReconnectsAndSucceeds() throws Exception {
    JdbcConnectionProvider connections = connections(ConnectionLimits.defaults());
    OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
    UUID id = append(T0);
    assertThat(store.backlog(T0).deadLetters()).isZero(); // the connection is open, and trusted
    long session = sessionId(connections);

    kill(session);

    assertThat(ids(store.claim("a", 10, T0, LEASE))).containsExactly(id);
    assertThat(sessionId(connections)).isNotEqualTo(session);
  }

  @Test
  final void connection_killedAfterTheWorkRanAStatement_failsTheCall_andDoesNotRunItAgain()
      throws Exception {
    JdbcConnectionProvider connections = connections(ConnectionLimits.defaults());
    SqlExecutor executor = JdbcExecutor.of(connections);
    long session = sessionId(connections);
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                executor.inTransaction(
                    "read twice",
                    s -> {
                      runs.incrementAndGet();
                      s.query("SELECT 1 AS one", Params.none());
                      kill(session);
                      return s.query("SELECT 2 AS two", Params.none());
                    }))
        .isInstanceOf(OutboxStoreException.class)
        .hasMessageStartingWith("could not read twice");
    assertThat(runs).hasValue(1);
    assertThat(sessionId(connections)).isNotEqualTo(session);
  }

  @Test
  final void connection_withAWrongPassword_failsWithAClearMessage() {
    TestDatabase db = database();
    JdbcConnectionProvider connections =
        closeAfterEach(
            JdbcConnectionProvider.create(
                Stores.settings(db, tables),
                CredentialsSource.of(new DatabaseCredentials(db.user(), "not-the-password")),
                ConnectionLimits.defaults()));
    OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();

    assertThatThrownBy(() -> store.backlog(T0))
        .isInstanceOf(OutboxStoreException.class)
        .hasMessageContaining("refused the login of user '" + db.user() + "'")
        .hasMessageContaining("OUTBOX_DB_SECRET_ARN")
        .hasMessageNotContaining("not-the-password");
  }

  @Test
  final void connection_whenTheLoginIsRefused_retriesOnceWithRefreshedCredentials() {
    TestDatabase db = database();
    AtomicInteger refreshes = new AtomicInteger();
    CredentialsSource rotated =
        refresh -> {
          if (refresh) {
            refreshes.incrementAndGet();
            return new DatabaseCredentials(db.user(), db.password());
          }
          return new DatabaseCredentials(db.user(), "the-old-password");
        };
    JdbcConnectionProvider connections =
        closeAfterEach(
            JdbcConnectionProvider.create(
                Stores.settings(db, tables), rotated, ConnectionLimits.defaults()));

    assertThat(OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build().backlog(T0))
        .isEqualTo(new Backlog(Duration.ZERO, 0, 0, 0, 0, 0, 0, 0));
    assertThat(refreshes).hasValue(1);
  }

  // ---- helpers

  /**
   * Marks a destination misconfigured, as the poller would, for plan tests; its key, for the rows
   * made to wait for it.
   */
  String misconfiguredDestinationKey() {
    String missing = "arn:aws:sns:us-east-1:123456789012:missing";
    store()
        .destinationHealth()
        .markDown(
            missing,
            DestinationState.MISCONFIGURED,
            "NotFound",
            "Topic does not exist",
            T0,
            T0.plusSeconds(60));
    return DestinationHealth.key(missing);
  }

  static ConnectionLimits limitsCheckingEveryUse() {
    ConnectionLimits d = ConnectionLimits.defaults();
    return new ConnectionLimits(
        d.connectTimeout(),
        d.socketTimeout(),
        d.statementTimeout(),
        d.idleInTransactionTimeout(),
        Duration.ZERO);
  }

  long sessionId(JdbcConnectionProvider connections) {
    return connections.inTransaction(
        "read the session id",
        c -> {
          try (var st = c.createStatement();
              var rs = st.executeQuery(sessionIdSql())) {
            rs.next();
            return rs.getLong(1);
          }
        });
  }

  void kill(long session) {
    rows.execute(killSessionSql(session));
  }
}
