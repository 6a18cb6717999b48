package dev.lambdaoutbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.PrivateServer;
import dev.lambdaoutbox.testing.PrivateServers;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Real TLS handshakes between the packaged reprocessor and a private PostgreSQL serving a
 * self-signed certificate. The function reaches the server by a name that is not a loopback address
 * ({@code db.outbox.test}, which its JVM resolves to 127.0.0.1 through {@code jdk.net.hosts.file}),
 * so it decides by itself, with nothing in the URL, to connect with {@code sslmode=verify-full}: it
 * accepts a certificate for that name issued by the CA of {@code OUTBOX_DB_TLS_CA_FILE}, and
 * refuses one for another name, and one its trust store does not know. Verification off is only
 * what {@code OUTBOX_DB_TLS=require} asks for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseTlsHandshakeTest {
  private static final String HOST = "db.outbox.test";
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final String LIST = "{\"action\":\"list\",\"requestedBy\":\"tls-test\"}";

  private PrivateServer<TestDatabase> server;
  private TestDatabase db;
  private OutboxTables tables;
  private Path dir;
  private Path hostsFile;
  private SelfSignedCertificate right;
  private SelfSignedCertificate wrongName;

  @BeforeAll
  void startServerWithTls() throws Exception {
    server = PrivateServers.postgres();
    db = server.endpoint();
    tables = db.createTables("tls");
    dir = Files.createTempDirectory("outbox-tls-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    right = SelfSignedCertificate.forHost(HOST, dir);
    wrongName = SelfSignedCertificate.forHost("other.outbox.test", dir);
    var serverUser = Files.getOwner(Path.of(query("SHOW data_directory")));
    right.handTo(serverUser);
    wrongName.handTo(serverUser);
    hostsFile = Files.writeString(dir.resolve("hosts"), "127.0.0.1 " + HOST + " localhost\n");
    serve(right);
  }

  @AfterAll
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
    if (dir != null) {
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(dir);
    }
  }

  @Test
  void byDefault_aCertificateForTheHostFromTheTrustedCa_isAccepted_andTheSessionIsEncrypted()
      throws Exception {
    serve(right);
    Map<String, String> env = environment();
    env.put("OUTBOX_DB_TLS_CA_FILE", right.certificate().toString());

    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction fn = start(env, runtime)) {
      LambdaRuntimeEmulator.Result result = runtime.invoke(LIST, TIMEOUT);
      assertThat(result.failed()).as("%s\n%s", result.body(), fn.output()).isFalse();
      assertThat(
              query(
                  "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid"
                      + " WHERE a.application_name = 'lambda-outbox' AND s.ssl"))
          .as("the function's open connection is encrypted")
          .isEqualTo("1");
    }
  }

  @Test
  void byDefault_aCertificateForAnotherName_isRefused_sayingWhatToCheck() throws Exception {
    serve(wrongName);
    Map<String, String> env = environment();
    env.put("OUTBOX_DB_TLS_CA_FILE", wrongName.certificate().toString());

    String answer = failure(env);

    assertThat(answer).contains(HOST, "TLS certificate was not accepted", "OUTBOX_DB_TLS_CA_FILE");
  }

  @Test
  void byDefault_aCertificateTheTrustStoreDoesNotKnow_isRefused() throws Exception {
    serve(right);

    String answer = failure(environment());

    assertThat(answer).contains("TLS certificate was not accepted", "the JVM's trust store");
  }

  @Test
  void verificationOff_isTheNamedSetting_andStillEncrypts() throws Exception {
    serve(wrongName);
    Map<String, String> env = environment();
    env.put("OUTBOX_DB_TLS", "require");

    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction fn = start(env, runtime)) {
      LambdaRuntimeEmulator.Result result = runtime.invoke(LIST, TIMEOUT);
      assertThat(result.failed()).as("%s\n%s", result.body(), fn.output()).isFalse();
    }
  }

  /** Makes the server present {@code certificate} to new connections. */
  private void serve(SelfSignedCertificate certificate) throws Exception {
    execute("ALTER SYSTEM SET ssl_cert_file = '" + certificate.certificate() + "'");
    execute("ALTER SYSTEM SET ssl_key_file = '" + certificate.key() + "'");
    execute("ALTER SYSTEM SET ssl = on");
    execute("SELECT pg_reload_conf()");
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!certificate.certificate().toString().equals(query("SHOW ssl_cert_file"))
        || !"on".equals(query("SHOW ssl"))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the server did not take the certificate; " + server.log());
      }
      Thread.sleep(100);
    }
  }

  private Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", "jdbc:postgresql://" + HOST + ":" + server.port() + "/outbox");
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.putAll(TestEndpoints.aws().environment());
    return env;
  }

  private PackagedFunction start(Map<String, String> env, LambdaRuntimeEmulator runtime)
      throws Exception {
    OutboxFunction fn = OutboxFunction.REPROCESSOR;
    return PackagedFunction.start(
        PackagedFunction.lambdaJar(fn.module()),
        fn.module(),
        fn.handler(),
        env,
        runtime,
        Path.of(ProcessHandle.current().info().command().orElse("java")),
        List.of("-Djdk.net.hosts.file=" + hostsFile));
  }

  private String failure(Map<String, String> env) throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction fn = start(env, runtime)) {
      LambdaRuntimeEmulator.Result result = runtime.invoke(LIST, TIMEOUT);
      assertThat(result.failed()).as(fn.output()).isTrue();
      return result.body();
    }
  }

  private void execute(String sql) throws Exception {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private String query(String sql) throws Exception {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
