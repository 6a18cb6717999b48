package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.Jdbi;

/**
 * A database the tests may use: where it is, and helpers to open it and to make private outbox
 * tables.
 */
public record TestDatabase(
    String name, SqlDialect dialect, String jdbcUrl, String user, String password) {

  public Connection open() throws SQLException {
    return DriverManager.getConnection(jdbcUrl, user, password);
  }

  public Jdbi jdbi() {
    return Jdbi.create(jdbcUrl, user, password);
  }

  /**
   * Creates a fresh set of outbox tables under a random prefix, so test classes never see each
   * other's rows and may run side by side.
   */
  public OutboxTables createTables(String label) {
    OutboxTables tables = OutboxTables.withPrefix(randomPrefix(label));
    try (Connection c = open()) {
      OutboxSchema.create(tables).migrate(c);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create outbox tables in " + name, e);
    }
    return tables;
  }

  /**
   * Fresh tables under a random prefix as an older release left them: only the first {@code
   * migrations} of {@link OutboxSchema#MIGRATIONS} applied, and recorded in the schema history as
   * {@link OutboxSchema} records them, so that its next {@code migrate} upgrades them. Drop them
   * with {@link #dropTables}.
   */
  public OutboxTables createTablesUpTo(String label, int migrations) {
    OutboxTables tables = OutboxTables.withPrefix(randomPrefix(label));
    String history =
        dialect == SqlDialect.POSTGRESQL
            ? " (version varchar(64) PRIMARY KEY, installed_at timestamptz NOT NULL DEFAULT now())"
            : " (version varchar(64) PRIMARY KEY,"
                + " installed_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))";
    try (Connection c = open();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE " + tables.schemaHistory() + history);
      for (String migration : OutboxSchema.MIGRATIONS.subList(0, migrations)) {
        for (String sql : OutboxSchema.create(tables).statements(dialect, migration)) {
          st.execute(sql);
        }
        st.execute(
            "INSERT INTO "
                + tables.schemaHistory()
                + " (version) VALUES ('"
                + migration.substring(1, migration.indexOf("__"))
                + "')");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not install older outbox tables in " + name, e);
    }
    return tables;
  }

  private static String randomPrefix(String label) {
    return "t_"
        + label
        + "_"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xFFFF))
        + "_";
  }

  /** Drops the tables {@link #createTables} made. */
  public void dropTables(OutboxTables tables) {
    try (Connection c = open();
        Statement st = c.createStatement()) {
      for (String table :
          new String[] {
            tables.messages(),
            tables.deadLetters(),
            tables.deadLetterAudit(),
            tables.idempotencyKeys(),
            tables.inbox(),
            tables.destinationHealth(),
            tables.parkedKeys(),
            tables.pollerLeases(),
            tables.schemaHistory()
          }) {
        st.execute("DROP TABLE IF EXISTS " + table);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop outbox tables in " + name, e);
    }
  }

  /** The same database, logged in as {@code user}. */
  public TestDatabase as(String user, String password) {
    return new TestDatabase(name, dialect, jdbcUrl, user, password);
  }

  /**
   * The same database and login with unqualified names resolved in PostgreSQL schema {@code schema}
   * ({@code currentSchema} in the URL), which is created when missing; drop it with {@link
   * #dropSchema}.
   */
  public TestDatabase inSchema(String schema) {
    if (dialect != SqlDialect.POSTGRESQL) {
      throw new IllegalArgumentException("schema: only PostgreSQL has schemas, not " + name);
    }
    try (Connection c = open();
        Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create schema " + schema + " in " + name, e);
    }
    String url = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    return new TestDatabase(name, dialect, url, user, password);
  }

  /** Drops a schema {@link #inSchema} created, with what is left in it. */
  public void dropSchema(String schema) {
    try (Connection c = open();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop schema " + schema + " in " + name, e);
    }
  }

  @Override
  public String toString() {
    return name + " at " + jdbcUrl;
  }
}
