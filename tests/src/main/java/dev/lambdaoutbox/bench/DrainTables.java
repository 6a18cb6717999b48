package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;

/** What the drain benchmarks do between contenders: refill the outbox, print a result. */
final class DrainTables {
  private DrainTables() {}

  /**
   * Refills the outbox from {@code source}, the same rows for every contender, and analyses it; the
   * ordered claim's shared cursor goes back to the first key.
   */
  static void reload(Connection c, TestDatabase db, OutboxTables tables, String source)
      throws Exception {
    execute(c, "DELETE FROM " + tables.messages());
    resetClaimCursor(c, tables);
    execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source);
    execute(
        c,
        (db.dialect() == SqlDialect.POSTGRESQL ? "VACUUM ANALYZE " : "ANALYZE TABLE ")
            + tables.messages());
  }

  /** Puts the ordered claim's shared cursor back before the first key, as the migration left it. */
  static void resetClaimCursor(Connection c, OutboxTables tables) throws Exception {
    execute(
        c, "UPDATE " + tables.claimCursors() + " SET aggregate_type = NULL, aggregate_id = NULL");
  }

  /** Prints one contender's line and returns its result. */
  static DrainResult print(DrainResult r) {
    System.out.printf(
        "  %-58s %,9d events in %7.2f s = %,9.0f events/s %s%n",
        r.name(), r.events(), r.seconds(), r.perSecond(), r.note());
    return r;
  }

  static void execute(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
