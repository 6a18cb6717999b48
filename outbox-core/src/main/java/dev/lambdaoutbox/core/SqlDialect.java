package dev.lambdaoutbox.core;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The SQL dialects the outbox tables exist in. */
public enum SqlDialect {
  POSTGRESQL("postgresql"),
  /** MySQL 8, Aurora MySQL 3 and MariaDB 10.6 or later. */
  MYSQL("mysql");

  private final String migrationFolder;

  SqlDialect(String migrationFolder) {
    this.migrationFolder = migrationFolder;
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
