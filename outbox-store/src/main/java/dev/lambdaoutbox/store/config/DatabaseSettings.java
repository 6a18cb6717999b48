package dev.lambdaoutbox.store.config;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.util.Optional;

/**
 * Where the outbox tables are over JDBC ({@code OUTBOX_STORE=jdbc}, the default) and how to log in:
 * the URL, the login (a Secrets Manager secret, or for local runs a user and password), the table
 * prefix and TLS ({@link DatabaseTls}), read once from the variables {@link DatabaseVariables}
 * declares. Only MySQL Connector/J is packaged, so a {@code jdbc:mariadb:} URL is refused with the
 * {@code jdbc:mysql:} one to write instead.
 *
 * <p>The URL may carry a password ({@code ?password=...}, {@code //user:password@host}): it is
 * printed only through {@link JdbcUrls#redact}, here and in every message about the connection.
 */
public record DatabaseSettings(
    String jdbcUrl,
    SqlDialect dialect,
    Optional<String> secretArn,
    Optional<String> user,
    Optional<String> password,
    OutboxTables tables,
    DatabaseTls tls,
    long resultBudgetBytes)
    implements StoreSettings {

  /**
   * How much of the function's memory the row data of one statement may take: a thirty-second. The
   * poller holds up to four batches at once (one publishing, one claimed ahead, two being
   * recorded), and a row's text takes up to twice its UTF-8 bytes in the JVM, so the batches' rows
   * stay within a quarter of the memory.
   */
  public static final int MEMORY_SHARE_PER_RESULT = 32;

  /**
   * With the default TLS ({@link DatabaseTls#defaults()}) and the result budget of the default
   * memory ({@link DatabaseVariables#FUNCTION_MEMORY}).
   */
  public DatabaseSettings(
      String jdbcUrl,
      SqlDialect dialect,
      Optional<String> secretArn,
      Optional<String> user,
      Optional<String> password,
      OutboxTables tables) {
    this(
        jdbcUrl,
        dialect,
        secretArn,
        user,
        password,
        tables,
        DatabaseTls.defaults(),
        resultBudget(Integer.parseInt(DatabaseVariables.FUNCTION_MEMORY.defaultValue())));
  }

  /** The variables' names, for messages, as {@link DatabaseVariables} declares them. */
  public static final String JDBC_URL = DatabaseVariables.JDBC_URL.name();

  public static final String SECRET_ARN = DatabaseVariables.SECRET_ARN.name();
  public static final String USER = DatabaseVariables.USER.name();
  public static final String PASSWORD = DatabaseVariables.PASSWORD.name();

  /** The JDBC settings; {@link StoreSettings#fromEnvironment} reads {@code OUTBOX_STORE} first. */
  public static DatabaseSettings fromEnvironment(EnvironmentReader env) {
    String url =
        env.required(
            DatabaseVariables.JDBC_URL,
            "the database's JDBC URL, e.g. jdbc:postgresql://host:5432/app");
    SqlDialect dialect;
    if (url.startsWith("jdbc:postgresql:")) {
      dialect = SqlDialect.POSTGRESQL;
    } else if (url.startsWith("jdbc:mysql:")) {
      dialect = SqlDialect.MYSQL;
    } else if (url.startsWith("jdbc:mariadb:")) {
      // Only MySQL Connector/J is packaged: it speaks to MariaDB as well, so a second driver
      // would add its jar to every cold start for nothing.
      throw new ConfigurationException(
          JDBC_URL,
          "'"
              + JdbcUrls.redact(url)
              + "' needs the MariaDB driver, which the functions do not package; write the same"
              + " URL as jdbc:mysql:"
              + JdbcUrls.redact(url.substring("jdbc:mariadb:".length()))
              + " (MySQL Connector/J, packaged, works with MariaDB)");
    } else {
      throw new ConfigurationException(
          JDBC_URL,
          "'"
              + JdbcUrls.redact(url)
              + "' is not a PostgreSQL or MySQL JDBC URL (jdbc:postgresql://... or jdbc:mysql://...)");
    }
    Optional<String> secret = env.optional(DatabaseVariables.SECRET_ARN);
    Optional<String> user = env.optional(DatabaseVariables.USER);
    Optional<String> password = env.optional(DatabaseVariables.PASSWORD);
    if (secret.isPresent()) {
      if (!secret.get().startsWith("arn:") || !secret.get().contains(":secretsmanager:")) {
        throw new ConfigurationException(
            SECRET_ARN,
            "'"
                + secret.get()
                + "' is not a Secrets Manager secret ARN (arn:aws:secretsmanager:...)");
      }
      if (user.isPresent() || password.isPresent()) {
        throw new ConfigurationException(
            SECRET_ARN,
            "is set together with " + USER + "/" + PASSWORD + "; set only one of the two");
      }
    } else if (user.isEmpty() || password.isEmpty()) {
      throw new ConfigurationException(
          user.isEmpty() ? USER : PASSWORD,
          "is not set; give the database login as "
              + SECRET_ARN
              + " (a Secrets Manager secret with username and password) or as "
              + USER
              + " and "
              + PASSWORD);
    }
    DatabaseTls tls = DatabaseTls.fromEnvironment(env);
    MysqlLegacyTlsFlags.check(dialect, url, tls);
    return new DatabaseSettings(
        url,
        dialect,
        secret,
        user,
        password,
        StoreSettings.tables(env),
        tls,
        resultBudget(env.integer(DatabaseVariables.FUNCTION_MEMORY)));
  }

  /** The result budget of a function with {@code memoryMb} MB: {@link #MEMORY_SHARE_PER_RESULT}. */
  public static long resultBudget(int memoryMb) {
    return memoryMb * 1024L * 1024L / MEMORY_SHARE_PER_RESULT;
  }

  @Override
  public String toString() { // never print the password
    return "DatabaseSettings[jdbcUrl="
        + JdbcUrls.redact(jdbcUrl)
        + ", dialect="
        + dialect
        + ", login="
        + (secretArn.isPresent() ? "secret " + secretArn.get() : "user " + user.orElse("?"))
        + ", tables="
        + tables.prefix()
        + "*, tls="
        + tls.mode().text()
        + tls.caFile().map(f -> " trusting " + f).orElse("")
        + ", resultBudgetBytes="
        + resultBudgetBytes
        + "]";
  }
}
