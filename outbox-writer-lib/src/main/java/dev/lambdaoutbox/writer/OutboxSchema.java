package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.internal.SqlScript;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * Creates and upgrades the outbox tables from the versioned migrations shipped in this jar, under
 * {@code db/outbox/postgresql/} and {@code db/outbox/mysql/} ({@code V1__create_outbox_tables.sql},
 * ...).
 *
 * <p>It records applied versions in {@code <prefix>outbox_schema_history} and takes a database lock
 * while it works, so many instances may call {@link #migrate} at start-up. Teams that run Flyway or
 * Liquibase can hand those same files to their tool instead, with the placeholder {@code
 * table_prefix} set (empty for no prefix).
 */
public final class OutboxSchema {
  /**
   * The migrations, oldest first; each exists for every dialect, so that both list the same
   * versions. One that changes only one dialect's schema is, for the other, a comment saying why.
   */
  public static final List<String> MIGRATIONS =
      List.of(
          "V1__create_outbox_tables.sql",
          "V2__create_idempotency_keys.sql",
          "V3__destination_health.sql",
          "V4__audit_details_as_json.sql",
          "V5__aggregate_ordering.sql",
          "V6__audit_invoker_identity.sql",
          "V7__full_size_headers_and_rows_waiting_for_a_destination.sql",
          "V8__poller_leases.sql",
          "V9__claim_cursors.sql",
          "V10__pending_key_index.sql",
          "V11__database_clock_defaults.sql",
          "V12__due_times.sql",
          "V13__failure_groups.sql",
          "V14__rewind_copies.sql");

  private final OutboxTables tables;

  private OutboxSchema(OutboxTables tables) {
    this.tables = Objects.requireNonNull(tables, "tables");
  }

  public static OutboxSchema create() {
    return new OutboxSchema(OutboxTables.defaults());
  }

  public static OutboxSchema create(OutboxTables tables) {
    return new OutboxSchema(tables);
  }

  /**
   * Applies the missing migrations, each in its own transaction where the database allows DDL in
   * one.
   */
  public void migrate(Jdbi jdbi) {
    jdbi.useHandle(handle -> migrate(handle.getConnection()));
  }

  /**
   * Applies the missing migrations on {@code connection}, which must not be inside a transaction of
   * the caller's; its auto-commit mode is restored afterwards.
   */
  public void migrate(Connection connection) {
    try {
      boolean autoCommit = connection.getAutoCommit();
      try {
        connection.setAutoCommit(true);
        SqlDialect dialect = SqlDialect.of(connection);
        if (dialect == SqlDialect.POSTGRESQL) {
          migratePostgres(connection);
        } else {
          migrateMysql(connection);
        }
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new OutboxException(
          "could not migrate the outbox schema (" + tables.messages() + ")", e);
    }
  }

  /** The SQL of one migration for one dialect, with the table prefix filled in. */
  public String render(SqlDialect dialect, String migration) {
    String resource = dialect.migrationLocation() + "/" + migration;
    try (InputStream in = OutboxSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxException("migration " + resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replace("${table_prefix}", tables.prefix());
    } catch (IOException e) {
      throw new OutboxException("could not read migration " + resource, e);
    }
  }

  /**
   * The statements of one migration for one dialect, with the table prefix filled in, in the order
   * they run: for a tool that runs a migration one statement at a time.
   */
  public List<String> statements(SqlDialect dialect, String migration) {
    return SqlScript.statements(render(dialect, migration));
  }

  private void migratePostgres(Connection connection) throws SQLException {
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      // Serialises concurrent migrators; released at commit.
      st.execute("SELECT pg_advisory_xact_lock(" + lockKey() + ")");
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + tables.schemaHistory()
              + " (version varchar(64) PRIMARY KEY, installed_at timestamptz NOT NULL DEFAULT now())");
      Set<String> applied = applied(connection);
      for (String migration : MIGRATIONS) {
        if (!applied.contains(version(migration))) {
          apply(connection, SqlDialect.POSTGRESQL, migration);
        }
      }
      connection.commit();
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    }
  }

  private void migrateMysql(Connection connection) throws SQLException {
    // MySQL commits DDL implicitly, so a named lock, not a transaction, keeps migrators apart.
    String lock = "outbox_schema_" + tables.prefix();
    try (PreparedStatement get = connection.prepareStatement("SELECT GET_LOCK(?, 60)")) {
      get.setString(1, lock);
      try (ResultSet rs = get.executeQuery()) {
        if (!rs.next() || rs.getInt(1) != 1) {
          throw new OutboxException("timed out after 60 s waiting for the schema lock " + lock);
        }
      }
    }
    try (Statement st = connection.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + tables.schemaHistory()
              + " (version varchar(64) PRIMARY KEY,"
              + " installed_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))");
      Set<String> applied = applied(connection);
      for (String migration : MIGRATIONS) {
        if (!applied.contains(version(migration))) {
          apply(connection, SqlDialect.MYSQL, migration);
        }
      }
    } finally {
      try (PreparedStatement release = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
        release.setString(1, lock);
        release.execute();
      }
    }
  }

  private void apply(Connection connection, SqlDialect dialect, String migration)
      throws SQLException {
    try (Statement st = connection.createStatement()) {
      for (String sql : statements(dialect, migration)) {
        st.execute(sql);
      }
    }
    try (PreparedStatement ps =
        connection.prepareStatement(
            "INSERT INTO " + tables.schemaHistory() + " (version) VALUES (?)")) {
      ps.setString(1, version(migration));
      ps.executeUpdate();
    }
  }

  private Set<String> applied(Connection connection) throws SQLException {
    Set<String> versions = new HashSet<>();
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("SELECT version FROM " + tables.schemaHistory())) {
      while (rs.next()) {
        versions.add(rs.getString(1));
      }
    }
    return versions;
  }

  private long lockKey() {
    return ("outbox_schema_" + tables.prefix()).hashCode();
  }

  /** "V1__create_outbox_tables.sql" becomes "1". */
  static String version(String migration) {
    return migration.substring(1, migration.indexOf("__"));
  }
}
