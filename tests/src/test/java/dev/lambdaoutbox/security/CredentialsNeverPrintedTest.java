package dev.lambdaoutbox.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.CredentialsSource;
import dev.lambdaoutbox.store.config.DatabaseCredentials;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * The database password never shows, whatever fails: not when the secret holding it cannot be read
 * (the JSON parser's message would quote it), not when the JDBC URL carrying it cannot be used.
 * Checked on the whole exception chain in process, and on everything the packaged function prints
 * and answers when it fails under the runtime interface client, as Lambda would log it.
 */
class CredentialsNeverPrintedTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final String PASSWORD = "Vq8Lk2Xz7Rw4";

  /**
   * One that MySQL Connector/J cannot read in a URL: it quotes the URL's authority in its error.
   */
  private static final String PASSWORD_WITH_AT = "Hn3@Jd6Ws9Pq";

  @Test
  void anUnreadableSecret_failsTheFunctionNamingTheField_andNothingPrintedHoldsThePassword()
      throws Exception {
    AwsEndpoint aws = TestEndpoints.aws();
    TestDatabase db = TestEndpoints.postgres();
    try (SecretsManagerClient secrets =
        aws.configure(SecretsManagerClient.builder())
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .build()) {
      for (String[] malformed :
          new String[][] {
            {"{\"username\":\"outbox\",\"password\":" + PASSWORD + "}", "is not valid JSON"},
            {"{\"username\":\"outbox\",\"password\":[\"" + PASSWORD + "\"]}", "'password'"},
            {"{\"username\":\"outbox\",\"passwd\":\"" + PASSWORD + "\"}", "no 'password' field"},
          }) {
        String name = "outbox-leak-" + UUID.randomUUID();
        String arn = secrets.createSecret(r -> r.name(name).secretString(malformed[0])).arn();
        try {
          Map<String, String> env = functionEnvironment(db, aws, db.jdbcUrl());
          env.remove("OUTBOX_DB_USER");
          env.remove("OUTBOX_DB_PASSWORD");
          env.put("OUTBOX_DB_SECRET_ARN", arn);

          Failure failure = invokeFailing(OutboxFunction.POLLER, env, "{}");

          assertThat(failure.answer()).contains("OUTBOX_DB_SECRET_ARN", malformed[1]);
          assertThat(failure.everything()).doesNotContain(piecesOf(PASSWORD));
        } finally {
          secrets.deleteSecret(r -> r.secretId(arn).forceDeleteWithoutRecovery(true));
        }
      }
    }
  }

  /**
   * Both forms the template's JdbcUrl accepts: {@code ?password=} and {@code user:pass@}, the
   * latter also with a password holding {@code @}.
   */
  @Test
  void aUrlCarryingThePassword_isNeverPrinted_whenTheDatabaseCannotBeReached() throws Exception {
    int closed = closedPort();
    Map<String, String> passwordsByUrl = new LinkedHashMap<>();
    passwordsByUrl.put(
        "jdbc:postgresql://127.0.0.1:" + closed + "/outbox?user=outbox&password=" + PASSWORD,
        PASSWORD);
    passwordsByUrl.put(
        "jdbc:postgresql://outbox:" + PASSWORD + "@127.0.0.1:" + closed + "/outbox", PASSWORD);
    passwordsByUrl.put(
        "jdbc:mysql://outbox:" + PASSWORD + "@127.0.0.1:" + closed + "/outbox", PASSWORD);
    passwordsByUrl.put(
        "jdbc:mysql://127.0.0.1:" + closed + "/outbox?password=" + PASSWORD, PASSWORD);
    passwordsByUrl.put(
        "jdbc:mysql://outbox:" + PASSWORD_WITH_AT + "@127.0.0.1:" + closed + "/outbox",
        PASSWORD_WITH_AT);
    passwordsByUrl.put(
        "jdbc:postgresql://127.0.0.1:" + closed + "/outbox?password=" + PASSWORD_WITH_AT,
        PASSWORD_WITH_AT);
    for (Map.Entry<String, String> e : passwordsByUrl.entrySet()) {
      String url = e.getKey();
      String password = e.getValue();
      DatabaseSettings settings =
          DatabaseSettings.fromEnvironment(
              new EnvironmentReader(
                  Map.of(
                      "OUTBOX_JDBC_URL", url,
                      "OUTBOX_DB_USER", "outbox",
                      "OUTBOX_DB_PASSWORD", "unused")));
      try (JdbcConnectionProvider provider =
          JdbcConnectionProvider.create(
              settings,
              CredentialsSource.of(new DatabaseCredentials("outbox", "unused")),
              ConnectionLimits.fromEnvironment(new EnvironmentReader(Map.of())))) {
        Throwable failed = catchThrowable(() -> provider.inTransaction("probe", c -> 1));

        assertThat(failed).as(url).isNotNull();
        assertThat(failed.getMessage()).as(url).contains("could not connect to jdbc:");
        assertThat(everythingItCarries(failed)).as(url).doesNotContain(piecesOf(password));
      }
      assertThat(settings.toString()).doesNotContain(piecesOf(password));
    }

    AwsEndpoint aws = TestEndpoints.aws();
    TestDatabase db = TestEndpoints.postgres();
    String url = "jdbc:postgresql://127.0.0.1:" + closed + "/outbox?password=" + PASSWORD;
    Failure invocation =
        invokeFailing(
            OutboxFunction.REPROCESSOR, functionEnvironment(db, aws, url), "{\"action\":\"list\"}");
    assertThat(invocation.answer()).contains("password=***");
    assertThat(invocation.everything()).doesNotContain(piecesOf(PASSWORD));

    String refused = "jdbc:mariadb://outbox:" + PASSWORD + "@127.0.0.1:" + closed + "/outbox";
    Failure init =
        invokeFailing(OutboxFunction.POLLER, functionEnvironment(db, aws, refused), "{}");
    assertThat(init.answer()).contains("OUTBOX_JDBC_URL", "jdbc:mysql://outbox:***@127.0.0.1");
    assertThat(init.everything()).doesNotContain(piecesOf(PASSWORD));
  }

  /** What a failed invocation answered, and that with all the function printed. */
  record Failure(String answer, String everything) {}

  private static Failure invokeFailing(
      OutboxFunction function, Map<String, String> env, String event) throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction fn =
            PackagedFunction.start(function.module(), function.handler(), env, runtime)) {
      LambdaRuntimeEmulator.Result result = runtime.invoke(event, TIMEOUT);
      String output = fn.output();
      assertThat(result.failed()).as(output).isTrue();
      return new Failure(result.body(), result.body() + "\n" + output);
    }
  }

  private static Map<String, String> functionEnvironment(
      TestDatabase db, AwsEndpoint aws, String jdbcUrl) {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("OUTBOX_JDBC_URL", jdbcUrl);
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_DB_CONNECT_TIMEOUT_MS", "2000");
    env.putAll(aws.environment());
    return env;
  }

  private static int closedPort() throws Exception {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort(); // closed again when this returns: connections are refused
    }
  }

  /** The whole chain as a log prints it: messages, causes, suppressed exceptions. */
  static String everythingItCarries(Throwable e) {
    StringWriter out = new StringWriter();
    e.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  /** Every four characters in a row of {@code secret}. */
  static String[] piecesOf(String secret) {
    List<String> pieces = new ArrayList<>();
    for (int i = 0; i + 4 <= secret.length(); i++) {
      pieces.add(secret.substring(i, i + 4));
    }
    return pieces.toArray(String[]::new);
  }
}
