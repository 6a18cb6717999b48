package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.SqlDialect;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The one place test code learns where its databases and AWS endpoint are:
 *
 * <ol>
 *   <li>environment variables, where set (what {@code scripts/local-aws env} prints);
 *   <li>otherwise, where a Docker engine answers, Testcontainers (PostgreSQL, MariaDB, LocalStack);
 *   <li>otherwise a failure that says how to start the local test bed. Tests never skip silently.
 * </ol>
 */
public final class TestEndpoints {
  /**
   * LocalStack 4.x from before auth tokens were required; pinned so the fallback never changes
   * under us.
   */
  public static final String LOCALSTACK_IMAGE = "localstack/localstack:4.4.0";

  public static final String POSTGRES_IMAGE = "postgres:16-alpine";
  public static final String MARIADB_IMAGE = "mariadb:10.11";

  private static final String HOW_TO_START =
      " Start the local test bed first: `scripts/local-aws up && eval \"$(scripts/local-aws env)\"`"
          + " (or run everything with `make test`).";

  private static final Map<String, String> ENV = System.getenv();

  private static TestDatabase postgres;
  private static TestDatabase mysql;
  private static AwsEndpoint aws;
  private static DataApiEndpoint dataApi;

  private TestEndpoints() {}

  /** PostgreSQL: {@code OUTBOX_JDBC_URL}, {@code OUTBOX_DB_USER}, {@code OUTBOX_DB_PASSWORD}. */
  public static synchronized TestDatabase postgres() {
    if (postgres == null) {
      postgres =
          fromEnv(
              "PostgreSQL",
              SqlDialect.POSTGRESQL,
              "OUTBOX_JDBC_URL",
              "OUTBOX_DB_USER",
              "OUTBOX_DB_PASSWORD");
      if (postgres == null) {
        requireDocker("PostgreSQL", "OUTBOX_JDBC_URL");
        PostgreSQLContainer c =
            new PostgreSQLContainer(DockerImageName.parse(POSTGRES_IMAGE))
                .withDatabaseName("outbox")
                .withUsername("outbox")
                .withPassword("outbox");
        c.start();
        postgres =
            new TestDatabase(
                "PostgreSQL", SqlDialect.POSTGRESQL, c.getJdbcUrl(), "outbox", "outbox");
      }
    }
    return postgres;
  }

  /**
   * MySQL or MariaDB: {@code OUTBOX_MYSQL_JDBC_URL}, {@code OUTBOX_MYSQL_USER}, {@code
   * OUTBOX_MYSQL_PASSWORD}.
   */
  public static synchronized TestDatabase mysql() {
    if (mysql == null) {
      mysql =
          fromEnv(
              "MariaDB",
              SqlDialect.MYSQL,
              "OUTBOX_MYSQL_JDBC_URL",
              "OUTBOX_MYSQL_USER",
              "OUTBOX_MYSQL_PASSWORD");
      if (mysql == null) {
        requireDocker("MariaDB", "OUTBOX_MYSQL_JDBC_URL");
        MariaDBContainer c =
            new MariaDBContainer(DockerImageName.parse(MARIADB_IMAGE))
                .withDatabaseName("outbox")
                .withUsername("outbox")
                .withPassword("outbox");
        c.start();
        String url = "jdbc:mysql://" + c.getHost() + ":" + c.getMappedPort(3306) + "/outbox";
        // As on the local test bed, the user may create users and grant them what it holds
        // (GrantedUsers); the container's root has the user's password.
        try (Connection root = DriverManager.getConnection(url, "root", "outbox");
            Statement st = root.createStatement()) {
          st.execute("GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'%' WITH GRANT OPTION");
        } catch (SQLException e) {
          throw new IllegalStateException("could not let the MariaDB container's user grant", e);
        }
        mysql = new TestDatabase("MariaDB", SqlDialect.MYSQL, url, "outbox", "outbox");
      }
    }
    return mysql;
  }

  /**
   * SNS/SQS/Secrets Manager: {@code AWS_ENDPOINT_URL}, {@code AWS_REGION} and the test credentials.
   */
  public static synchronized AwsEndpoint aws() {
    if (aws == null) {
      String endpoint = ENV.get("AWS_ENDPOINT_URL");
      if (endpoint != null && !endpoint.isBlank()) {
        aws =
            new AwsEndpoint(
                URI.create(endpoint),
                ENV.getOrDefault("AWS_REGION", "us-east-1"),
                ENV.getOrDefault("AWS_ACCESS_KEY_ID", "test"),
                ENV.getOrDefault("AWS_SECRET_ACCESS_KEY", "test"));
      } else {
        requireDocker("an SNS/SQS endpoint", "AWS_ENDPOINT_URL");
        LocalStackContainer c =
            new LocalStackContainer(DockerImageName.parse(LOCALSTACK_IMAGE))
                .withServices("sns", "sqs", "secretsmanager");
        c.start();
        aws = new AwsEndpoint(c.getEndpoint(), c.getRegion(), c.getAccessKey(), c.getSecretKey());
      }
    }
    return aws;
  }

  /**
   * The RDS Data API emulator over the PostgreSQL database of {@link #postgres()}: {@code
   * AWS_ENDPOINT_URL_RDS_DATA} (or {@code OUTBOX_DATA_API_ENDPOINT}), {@code
   * OUTBOX_DATA_API_RESOURCE_ARN}, {@code OUTBOX_DATA_API_SECRET_ARN}, {@code
   * OUTBOX_DATA_API_DATABASE}. There is no container fallback: the test bed's {@code
   * data-api-local} is the only emulator the tests know, and it must refuse what the Data API
   * refuses ({@link DataApiEndpoint#requireStrict}).
   */
  public static synchronized DataApiEndpoint dataApi() {
    if (dataApi == null) {
      String endpoint = ENV.getOrDefault("AWS_ENDPOINT_URL_RDS_DATA", "");
      if (endpoint.isBlank()) {
        endpoint = ENV.getOrDefault("OUTBOX_DATA_API_ENDPOINT", "");
      }
      String resource = ENV.get("OUTBOX_DATA_API_RESOURCE_ARN");
      String secret = ENV.get("OUTBOX_DATA_API_SECRET_ARN");
      String database = ENV.getOrDefault("OUTBOX_DATA_API_DATABASE", ENV.get("OUTBOX_DATABASE"));
      if (endpoint.isBlank() || resource == null || secret == null || database == null) {
        throw new IllegalStateException(
            "No RDS Data API endpoint for the tests: AWS_ENDPOINT_URL_RDS_DATA,"
                + " OUTBOX_DATA_API_RESOURCE_ARN, OUTBOX_DATA_API_SECRET_ARN and"
                + " OUTBOX_DATA_API_DATABASE are not all set."
                + HOW_TO_START);
      }
      DataApiEndpoint found =
          new DataApiEndpoint(
              URI.create(endpoint),
              ENV.getOrDefault("AWS_REGION", "us-east-1"),
              resource,
              secret,
              database,
              ENV.getOrDefault("AWS_ACCESS_KEY_ID", "test"),
              ENV.getOrDefault("AWS_SECRET_ACCESS_KEY", "test"));
      found.requireStrict(); // every test that asks fails the same way until it is strict
      dataApi = found;
    }
    return dataApi;
  }

  private static TestDatabase fromEnv(
      String name, SqlDialect dialect, String urlVar, String userVar, String passwordVar) {
    String url = ENV.get(urlVar);
    if (url == null || url.isBlank()) {
      return null;
    }
    String user = ENV.get(userVar);
    String password = ENV.get(passwordVar);
    if (user == null || password == null) {
      throw new IllegalStateException(
          urlVar + " is set but " + userVar + " or " + passwordVar + " is not." + HOW_TO_START);
    }
    return new TestDatabase(name, dialect, url, user, password);
  }

  private static void requireDocker(String what, String variable) {
    boolean docker;
    try {
      docker = DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      docker = false;
    }
    if (!docker) {
      throw new IllegalStateException(
          "No "
              + what
              + " for the tests: "
              + variable
              + " is not set and no Docker engine answers."
              + HOW_TO_START);
    }
  }
}
