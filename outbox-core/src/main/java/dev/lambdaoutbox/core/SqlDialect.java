package dev.lambdaoutbox.core;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The SQL dialects the outbox tables exist in. */
public enum SqlDialect {
  POSTGRESQL("postgresql", "statement_timestamp()"),
  /** MySQL 8, Aurora MySQL 3 and MariaDB 10.6 or later. */
  MYSQL("mysql", "UTC_TIMESTAMP(6)");

  private final String migrationFolder;
  private final String now;

  SqlDialect(String migrationFolder, String now) {
    this.migrationFolder = migrationFolder;
    this.now = now;
  }

  /**
   * The database's current time as the outbox tables' time columns take it: the one clock every due
   * time and age is read from, whatever the hosts' clocks say. PostgreSQL {@code
   * statement_timestamp()}: the statement's start, the same for every row it writes (unlike {@code
   * clock_timestamp()}) and not the transaction's (unlike {@code now()}, which would date an event
   * from the start of a long transaction). MySQL and MariaDB {@code UTC_TIMESTAMP(6)}: UTC whatever
   * the session's time zone (the columns hold UTC), to the microsecond, the statement's start.
   */
  public String now() {
    return now;
  }

  /** The classpath folder holding this dialect's migrations, e.g. {@code db/outbox/postgresql}. */
  public String migrationLocation() {
    return "db/outbox/" + migrationFolder;
  }

  /** The dialect of a JDBC connection, from its database product name. */
  public static SqlDialect of(Connection connection) {
    String product;
    try {
      product = connection.getMetaData().getDatabaseProductName();
    } catch (SQLException e) {
      throw new OutboxException("could not read the database product name of the connection", e);
    }
    return fromProductName(product);
  }

  /**
   * The dialect for a JDBC database product name, or for a JDBC URL such as {@code
   * jdbc:mysql://...}.
   */
  public static SqlDialect fromProductName(String productOrUrl) {
    String p = productOrUrl == null ? "" : productOrUrl.toLowerCase(Locale.ROOT);
    if (p.contains("postgres")) {
      return POSTGRESQL;
    }
    if (p.contains("mysql") || p.contains("mariadb")) {
      return MYSQL;
    }
    throw new OutboxException(
        "unsupported database '"
            + productOrUrl
            + "': the outbox supports PostgreSQL and MySQL/MariaDB");
  }
}
