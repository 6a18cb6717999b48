package dev.lambdaoutbox.store.config;

import static dev.lambdaoutbox.store.config.Setting.Type.INTEGER;
import static dev.lambdaoutbox.store.config.Setting.Type.MILLISECONDS;

import java.util.List;

/**
 * The database settings both functions read, declared once: where the outbox tables are ({@link
 * StoreSettings}: over JDBC, {@link DatabaseSettings} and {@link DatabaseTls}; over the Data API,
 * {@link DataApiSettings}) and how long the connection may wait ({@link ConnectionLimits}).
 */
public final class DatabaseVariables {
  public static final Setting STORE =
      Setting.choice(
              "OUTBOX_STORE",
              "jdbc",
              List.of("jdbc", "data-api"),
              "is not a known store; use 'jdbc' or 'data-api'")
          .parameter("StoreMode")
          .meaning(
              "how the functions reach the tables: over JDBC from inside your VPC, or over the RDS"
                  + " Data API of an Aurora cluster, outside any VPC"
                  + " ([deploying.md](deploying.md#jdbc-or-the-data-api))");

  public static final Setting JDBC_URL =
      Setting.text("OUTBOX_JDBC_URL", null, "`jdbc:postgresql://…` or `jdbc:mysql://…`")
          .parameter("JdbcUrl")
          .meaning(
              "`jdbc`, required there: the database with the outbox tables; MySQL and MariaDB both"
                  + " through `jdbc:mysql://` (the packaged MySQL Connector/J; `jdbc:mariadb:` is"
                  + " refused at start-up)");

  public static final Setting SECRET_ARN =
      Setting.text("OUTBOX_DB_SECRET_ARN", null, "a Secrets Manager secret ARN")
          .parameter("DbSecretArn")
          .meaning(
              "both modes: the functions' login, a secret whose JSON holds `username` and"
                  + " `password` of a database user of their own, not the master user"
                  + " ([database-user.md](database-user.md)). `jdbc`: the functions read it.");

  public static final Setting USER =
      Setting.text("OUTBOX_DB_USER", null, "a database user name")
          .meaning("`jdbc`: the login instead of the secret, for local runs");

  public static final Setting PASSWORD =
      Setting.text("OUTBOX_DB_PASSWORD", null, "that user's password")
          .meaning("`jdbc`: the password of `OUTBOX_DB_USER`, for local runs");

  public static final Setting TABLE_PREFIX =
      Setting.text("OUTBOX_TABLE_PREFIX", "", "up to 24 letters, digits, `_`; no leading digit")
          .parameter("TablePrefix")
          .meaning(
              "prefix of the outbox table names, as given to `OutboxTables.withPrefix`"
                  + " ([writing.md](writing.md#the-tables))");

  public static final Setting TLS =
      Setting.choice(
              "OUTBOX_DB_TLS",
              "verify-full",
              List.of("verify-full", "require", "disable"),
              "is not a TLS mode; use verify-full (the default: encrypted, the certificate"
                  + " checked), require (encrypted, the certificate not checked) or disable (no"
                  + " TLS)")
          .ignoringCase()
          .parameter("DatabaseTls")
          .meaning(
              "`jdbc`, a database not on loopback: `verify-full` encrypts and checks the server's"
                  + " certificate (CA and host name); `require` encrypts without checking it;"
                  + " `disable` sends the login in the clear. A `sslmode`/`sslMode` in `JdbcUrl`"
                  + " wins ([security](security.md#database-tls))");

  public static final Setting TLS_CA_FILE =
      Setting.text("OUTBOX_DB_TLS_CA_FILE", null, "a file path in the function")
          .parameter("DatabaseTlsCaFile")
          .meaning(
              "`jdbc`: PEM file of the CAs to trust, e.g. `/opt/rds-ca/global-bundle.pem` (the RDS"
                  + " CA bundle, from `DatabaseTlsCaLayerArn`); empty: the Java runtime's trust"
                  + " store, which lacks RDS's CAs");

  public static final Setting DATA_API_RESOURCE_ARN =
      Setting.text(
              "OUTBOX_DATA_API_RESOURCE_ARN",
              null,
              "an Aurora cluster ARN (`arn:aws:rds:REGION:ACCOUNT:cluster:NAME`)")
          .parameter("DataApiClusterArn")
          .meaning("`data-api`, required there: the cluster, with the Data API enabled");

  public static final Setting DATA_API_SECRET_ARN =
      Setting.text("OUTBOX_DATA_API_SECRET_ARN", null, "a Secrets Manager secret ARN")
          .parameter("DbSecretArn")
          .meaning("`data-api`: the Data API reads it with the function's role.");

  public static final Setting DATABASE =
      Setting.text("OUTBOX_DATABASE", null, "a database name")
          .parameter("DatabaseName")
          .meaning("`data-api`, required there: the database holding the outbox tables");

  public static final Setting DATA_API_ENGINE =
      Setting.choice(
              "OUTBOX_DATA_API_ENGINE",
              "postgresql",
              List.of("postgresql", "mysql"),
              "is not a Data API engine; use 'postgresql' or 'mysql'")
          .parameter("DataApiEngine")
          .meaning("`data-api`: Aurora PostgreSQL or Aurora MySQL");

  public static final Setting DATA_API_RETRY_TIMEOUT =
      Setting.number("OUTBOX_DATA_API_RETRY_TIMEOUT_MS", MILLISECONDS, 30_000, 0, 600_000)
          .meaning(
              "`data-api`: how long one store call keeps retrying while the cluster resumes from"
                  + " zero capacity (`DatabaseResumingException`), the Data API throttles or"
                  + " answers 5xx; keep it well below the function's timeout");

  public static final Setting CONNECT_TIMEOUT =
      Setting.number("OUTBOX_DB_CONNECT_TIMEOUT_MS", MILLISECONDS, 5_000, 100, 300_000)
          .meaning(
              "opening the connection and logging in; a database outage fails fast instead of"
                  + " hanging the invocation (`data-api`: the connect timeout of the HTTPS"
                  + " connection)");

  public static final Setting SOCKET_TIMEOUT =
      Setting.number("OUTBOX_DB_SOCKET_TIMEOUT_MS", MILLISECONDS, 30_000, 1_000, 900_000)
          .meaning(
              "`jdbc`: the longest wait for any reply from the server, so a network black hole"
                  + " ends; longer than `OUTBOX_DB_STATEMENT_TIMEOUT_MS`, so the server ends a slow"
                  + " statement first");

  public static final Setting STATEMENT_TIMEOUT =
      Setting.number("OUTBOX_DB_STATEMENT_TIMEOUT_MS", MILLISECONDS, 10_000, 100, 900_000)
          .meaning(
              "`jdbc`: set on the session: the longest one statement may run or wait for a row"
                  + " lock");

  public static final Setting IDLE_IN_TRANSACTION_TIMEOUT =
      Setting.number(
              "OUTBOX_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", MILLISECONDS, 10_000, 1_000, 900_000)
          .meaning(
              "`jdbc`: set on the session: how long a transaction may sit open with no statement"
                  + " running before the server rolls it back (PostgreSQL, MariaDB)");

  public static final Setting VALIDATION_INTERVAL =
      Setting.number("OUTBOX_DB_VALIDATION_INTERVAL_MS", MILLISECONDS, 30_000, 0, 3_600_000)
          .meaning("`jdbc`: how long the reused connection may sit unused before it is checked");

  public static final Setting FUNCTION_MEMORY =
      Setting.number("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", INTEGER, 1_024, 128, 10_240)
          .meaning(
              "set by Lambda: the function's memory in MB. `jdbc`: one claim or dead-letter read"
                  + " returns at most a thirty-second of it in row bytes (32 MiB at 1,024 MB); a"
                  + " single larger row is still read alone");

  private DatabaseVariables() {}

  /** Every database variable, in the order the reference lists them. */
  public static List<Setting> all() {
    return List.of(
        STORE,
        SECRET_ARN,
        DATA_API_SECRET_ARN,
        TABLE_PREFIX,
        JDBC_URL,
        USER,
        PASSWORD,
        TLS,
        TLS_CA_FILE,
        DATA_API_RESOURCE_ARN,
        DATABASE,
        DATA_API_ENGINE,
        DATA_API_RETRY_TIMEOUT,
        CONNECT_TIMEOUT,
        SOCKET_TIMEOUT,
        STATEMENT_TIMEOUT,
        IDLE_IN_TRANSACTION_TIMEOUT,
        VALIDATION_INTERVAL,
        FUNCTION_MEMORY);
  }
}
