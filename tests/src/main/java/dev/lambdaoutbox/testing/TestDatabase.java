package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.writer.OutboxSchema;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
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
    String prefix =
        "t_"
            + label
            + "_"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xFFFF))
            + "_";
    OutboxTables tables = OutboxTables.withPrefix(prefix);
    try (Connection c = open()) {
      OutboxSchema.create(tables).migrate(c);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create outbox tables in " + name, e);
    }
    return tables;
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
            tables.schemaHistory()
          }) {
        st.execute("DROP TABLE IF EXISTS " + table);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop outbox tables in " + name, e);
    }
  }

  @Override
  public String toString() {
    return name + " at " + jdbcUrl;
  }
}
