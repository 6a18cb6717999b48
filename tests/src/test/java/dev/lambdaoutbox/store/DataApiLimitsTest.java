package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.PrivateServer;
import dev.lambdaoutbox.testing.PrivateServers;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.rdsdata.model.DatabaseErrorException;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementRequest;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementResponse;
import software.amazon.awssdk.services.rdsdata.model.StatementTimeoutException;
import software.amazon.awssdk.services.rdsdata.model.TransactionNotFoundException;
import software.amazon.awssdk.services.rdsdata.model.UnsupportedResultException;

/**
 * The test bed's Data API emulator refuses what the Data API refuses, with its errors
 * (docs/testing.md lists each limit with AWS's page): a row over 64 KB, a response over 1 MiB, a
 * statement past the call's timeout, a transaction idle or open too long, a call into a transaction
 * that still runs one. The sizes are AWS's; the times are shortened for this private instance, as
 * the launcher allows, so that minutes are proven in seconds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DataApiLimitsTest {
  private static final Duration STATEMENT_TIMEOUT = Duration.ofMillis(600);
  private static final Duration IDLE = Duration.ofMillis(1_000);
  private static final Duration LIFETIME = Duration.ofMillis(2_500);

  private PrivateServer<DataApiEndpoint> server;
  private DataApiEndpoint api;
  private RdsDataClient client;

  @BeforeAll
  void start() {
    server =
        PrivateServers.dataApi(
            Map.of(
                "DATA_API_STATEMENT_TIMEOUT_MS", Long.toString(STATEMENT_TIMEOUT.toMillis()),
                "DATA_API_TRANSACTION_IDLE_MS", Long.toString(IDLE.toMillis()),
                "DATA_API_TRANSACTION_MAX_MS", Long.toString(LIFETIME.toMillis())));
    api = server.endpoint();
    client = api.client();
  }

  @AfterAll
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void aRow_ofMoreThan64000Bytes_asTheDatabaseSendsIt_isRefused_whateverItsCharacters() {
    // A row is each value's bytes and a 4-byte length: 63,996 bytes of text make 64,000.
    assertThat(execute("SELECT repeat('x', 63996) AS a", b -> {}).records()).hasSize(1);
    assertThat(execute("SELECT repeat('\uD83D\uDE00', 15999) AS a", b -> {}).records()).hasSize(1);

    assertRefused(() -> execute("SELECT repeat('x', 63997) AS a", b -> {}), "a row of 64001 bytes");
    assertRefused(
        () -> execute("SELECT repeat('\uD83D\uDE00', 16000) AS a", b -> {}),
        "a row of 64004 bytes");
    assertRefused(
        () -> execute("SELECT repeat('x', 40000) AS a, repeat('y', 30000) AS b", b -> {}),
        "a row of 70008 bytes");
  }

  @Test
  void aResponse_ofMoreThanOneMebibyte_isRefused_thoughEachRowFits() {
    String rows = "SELECT repeat('x', 60000) AS a FROM generate_series(1, %d)";
    assertThat(execute(rows.formatted(17), b -> {}).records()).hasSize(17);

    assertRefused(() -> execute(rows.formatted(18), b -> {}), "the response would hold");
  }

  @Test
  void aRefusedResult_endsItsTransaction() {
    String transaction = begin();

    assertRefused(
        () -> execute("SELECT repeat('x', 70000) AS a", b -> b.transactionId(transaction)), "row");

    assertTransactionGone(
        () -> execute("SELECT 1", b -> b.transactionId(transaction)),
        "aborted due to an error from a previous call");
  }

  @Test
  void aStatement_pastTheCallTimeout_isCancelled_andItsTransactionRolledBack() throws Exception {
    String table = table();
    execute("CREATE TABLE " + table + " (n int)", b -> {});
    String transaction = begin();
    execute("INSERT INTO " + table + " VALUES (1)", b -> b.transactionId(transaction));

    assertThatThrownBy(
            () ->
                execute(
                    "INSERT INTO " + table + " SELECT 2 FROM pg_sleep(1.2)",
                    b -> b.transactionId(transaction)))
        .isInstanceOfSatisfying(
            StatementTimeoutException.class, e -> assertThat(e.statusCode()).isEqualTo(400));

    assertTransactionGone(() -> execute("SELECT 1", b -> b.transactionId(transaction)), "aborted");
    Thread.sleep(1_000); // past the end the statement would have had
    assertThat(
            execute("SELECT count(*) AS n FROM " + table, b -> {})
                .records()
                .get(0)
                .get(0)
                .longValue())
        .isZero();
    execute("DROP TABLE " + table, b -> {});
  }

  @Test
  void withContinueAfterTimeout_theCallTimesOut_theStatementRunsToItsEnd_andCommits()
      throws Exception {
    String table = table();

    assertThatThrownBy(
            () ->
                execute(
                    "CREATE TABLE " + table + " AS SELECT 1 AS n FROM pg_sleep(1.2)",
                    b -> b.continueAfterTimeout(true)))
        .isInstanceOf(StatementTimeoutException.class);

    Thread.sleep(1_500);
    assertThat(execute("SELECT n FROM " + table, b -> {}).records()).hasSize(1);
    execute("DROP TABLE " + table, b -> {});
  }

  @Test
  void aCall_intoATransactionThatStillRunsOne_isRefused_untilThatOneEnds() throws Exception {
    String transaction = begin();
    assertThatThrownBy(
            () ->
                execute(
                    "SELECT 1 FROM pg_sleep(1.2)",
                    b -> b.transactionId(transaction).continueAfterTimeout(true)))
        .isInstanceOf(StatementTimeoutException.class);

    assertThatThrownBy(() -> execute("SELECT 1", b -> b.transactionId(transaction)))
        .isInstanceOfSatisfying(
            DatabaseErrorException.class,
            e -> assertThat(e.getMessage()).contains("Transaction is still running a query"));

    Thread.sleep(900);
    assertThat(execute("SELECT 1", b -> b.transactionId(transaction)).records()).hasSize(1);
    client.rollbackTransaction(
        b ->
            b.resourceArn(api.resourceArn()).secretArn(api.secretArn()).transactionId(transaction));
  }

  @Test
  void aTransaction_noCallUses_isRolledBack_afterTheIdleTimeout() throws Exception {
    String table = table();
    execute("CREATE TABLE " + table + " (n int)", b -> {});
    String transaction = begin();
    execute("INSERT INTO " + table + " VALUES (1)", b -> b.transactionId(transaction));

    Thread.sleep(IDLE.toMillis() + 500);

    assertTransactionGone(
        () -> execute("SELECT 1", b -> b.transactionId(transaction)), "no call used it");
    assertThat(execute("SELECT n FROM " + table, b -> {}).records()).isEmpty();
    execute("DROP TABLE " + table, b -> {});
  }

  @Test
  void aTransaction_inUse_isRolledBack_atItsLongestLife() throws Exception {
    String transaction = begin();
    long started = System.nanoTime();
    AwsServiceException gone = null;
    while (gone == null && System.nanoTime() - started < LIFETIME.multipliedBy(3).toNanos()) {
      try {
        execute("SELECT 1", b -> b.transactionId(transaction));
        Thread.sleep(IDLE.toMillis() / 2);
      } catch (TransactionNotFoundException e) {
        gone = e;
      }
    }

    assertThat(gone).as("the transaction ended").isNotNull();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(LIFETIME);
    assertThat(gone.statusCode()).isEqualTo(404);
    assertThat(gone.getMessage()).contains("ran for the longest a transaction may");
  }

  private ExecuteStatementResponse execute(
      String sql, Consumer<ExecuteStatementRequest.Builder> more) {
    return client.executeStatement(
        b -> {
          b.resourceArn(api.resourceArn())
              .secretArn(api.secretArn())
              .database(api.database())
              .sql(sql);
          more.accept(b);
        });
  }

  private String begin() {
    return client
        .beginTransaction(
            b ->
                b.resourceArn(api.resourceArn())
                    .secretArn(api.secretArn())
                    .database(api.database()))
        .transactionId();
  }

  private static String table() {
    return "t_limits_" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static void assertRefused(Runnable call, String says) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            UnsupportedResultException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(400);
              assertThat(e.getMessage()).contains("exceeds the size limit").contains(says);
            });
  }

  private static void assertTransactionGone(Runnable call, String why) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            TransactionNotFoundException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(404);
              assertThat(e.getMessage()).contains(why);
            });
  }
}
