package dev.lambdaoutbox.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.SqlDialect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntFunction;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The private servers tests may start, stop, restart and kill ({@link PrivateServer}): PostgreSQL,
 * MariaDB and the SNS/SQS endpoint, of the same kind as the shared test bed's, each ready when it
 * answers its clients.
 */
public final class PrivateServers {
  private static final String USER = "outbox";
  private static final String PASSWORD = "outbox";
  private static final String DATABASE = "outbox";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private PrivateServers() {}

  /** PostgreSQL, database/user/password outbox; its clean shutdown is a fast one (SIGINT). */
  public static PrivateServer<TestDatabase> postgres() {
    return PrivateServer.start(
        new DatabaseSpec(
            "serve-postgres",
            "INT",
            "private PostgreSQL",
            SqlDialect.POSTGRESQL,
            port -> "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE));
  }

  /** MariaDB, database/user/password outbox; its clean shutdown is SIGTERM. */
  public static PrivateServer<TestDatabase> mariadb() {
    return PrivateServer.start(
        new DatabaseSpec(
            "serve-mariadb",
            "TERM",
            "private MariaDB",
            SqlDialect.MYSQL,
            port -> "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE));
  }

  /**
   * SNS and SQS on LocalStack's runtime, as the test bed runs it (region us-east-1, credentials
   * test/test, account 000000000000). It takes seconds and about 0.5 GB to start; it is ready once
   * its health endpoint reports both services running and it has answered a first call to each. Its
   * state is in memory only: a restarted endpoint has no topics or queues until they are created
   * again; created with the same names, they have the same ARNs and URLs.
   */
  public static PrivateServer<AwsEndpoint> snsSqs() {
    return PrivateServer.start(
        new PrivateServer.Spec<AwsEndpoint>() {
          @Override
          public String command() {
            return "serve-sns-sqs";
          }

          @Override
          public String stopSignal() {
            return "TERM";
          }

          @Override
          public AwsEndpoint endpoint(int port) {
            return new AwsEndpoint(
                URI.create("http://127.0.0.1:" + port), "us-east-1", "test", "test");
          }

          /**
           * Both services reported running, then one call to each: LocalStack answers its first
           * request only after seconds of setting up, which the first client should not pay for.
           */
          @Override
          public void probe(AwsEndpoint endpoint) throws Exception {
            HttpRequest health =
                HttpRequest.newBuilder(endpoint.endpoint().resolve("/_localstack/health"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            String body = HTTP.send(health, HttpResponse.BodyHandlers.ofString()).body();
            JsonNode services = JSON.readTree(body).path("services");
            for (String service : List.of("sns", "sqs")) {
              if (!services.path(service).asText().equals("running")) {
                throw new IllegalStateException(service + " is not running yet: " + body);
              }
            }
            Duration firstCall = Duration.ofSeconds(60);
            try (SqsClient sqs =
                    endpoint
                        .configure(SqsClient.builder())
                        .httpClientBuilder(http(firstCall))
                        .overrideConfiguration(o -> o.apiCallTimeout(firstCall))
                        .build();
                SnsClient sns =
                    endpoint
                        .configure(SnsClient.builder())
                        .httpClientBuilder(http(firstCall))
                        .overrideConfiguration(o -> o.apiCallTimeout(firstCall))
                        .build()) {
              sqs.listQueues();
              sns.listTopics();
            }
          }
        });
  }

  /**
   * The Data API emulator as the test bed runs it (this checkout's launcher, over the test bed's
   * PostgreSQL and secrets, with AWS's limits), its settings shortened by {@code settings} ({@code
   * DATA_API_STATEMENT_TIMEOUT_MS}, {@code DATA_API_TRANSACTION_IDLE_MS}, ...: see {@code
   * scripts/lib/data-api-server.js}), so that a test can prove a limit of minutes in seconds. The
   * cluster and secret ARNs are the shared emulator's.
   */
  public static PrivateServer<DataApiEndpoint> dataApi(Map<String, String> settings) {
    DataApiEndpoint shared = TestEndpoints.dataApi();
    return PrivateServer.start(
        new PrivateServer.Spec<DataApiEndpoint>() {
          @Override
          public String command() {
            return "serve-data-api";
          }

          @Override
          public String stopSignal() {
            return "TERM";
          }

          @Override
          public DataApiEndpoint endpoint(int port) {
            return new DataApiEndpoint(
                URI.create("http://127.0.0.1:" + port),
                shared.region(),
                shared.resourceArn(),
                shared.secretArn(),
                shared.database(),
                shared.accessKeyId(),
                shared.secretAccessKey());
          }

          @Override
          public void probe(DataApiEndpoint endpoint) throws Exception {
            HttpRequest select =
                HttpRequest.newBuilder(endpoint.endpoint().resolve("/Execute"))
                    .timeout(Duration.ofSeconds(2))
                    .header("content-type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            JSON.createObjectNode()
                                .put("resourceArn", endpoint.resourceArn())
                                .put("secretArn", endpoint.secretArn())
                                .put("database", endpoint.database())
                                .put("sql", "SELECT 1")
                                .toString()))
                    .build();
            HttpResponse<String> answer = HTTP.send(select, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
              throw new IllegalStateException(
                  "answered " + answer.statusCode() + ": " + answer.body());
            }
          }

          @Override
          public Map<String, String> environment() {
            return settings;
          }
        });
  }

  private static UrlConnectionHttpClient.Builder http(Duration timeout) {
    return UrlConnectionHttpClient.builder()
        .connectionTimeout(Duration.ofSeconds(2))
        .socketTimeout(timeout);
  }

  private record DatabaseSpec(
      String command, String stopSignal, String name, SqlDialect dialect, IntFunction<String> url)
      implements PrivateServer.Spec<TestDatabase> {

    @Override
    public TestDatabase endpoint(int port) {
      return new TestDatabase(name, dialect, url.apply(port), USER, PASSWORD);
    }

    @Override
    public void probe(TestDatabase db) throws SQLException {
      Properties props = new Properties();
      props.setProperty("user", db.user());
      props.setProperty("password", db.password());
      // Both drivers call it connectTimeout: PostgreSQL's in seconds, MySQL's in milliseconds.
      props.setProperty("connectTimeout", dialect == SqlDialect.POSTGRESQL ? "2" : "2000");
      try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT 1")) {
        rs.next();
      }
    }
  }
}
