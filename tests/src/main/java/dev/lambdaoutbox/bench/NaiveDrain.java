package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The polling loop of the seed articles: select 100 pending rows, oldest first; for each, mark it
 * {@code processing}, publish it, mark it {@code sent}; every statement in auto-commit. Its table
 * is the articles' {@code outbox_messages} with the {@code (status, created_at)} index they
 * recommend, filled with the same rows as ours.
 */
final class NaiveDrain {
  private NaiveDrain() {}

  static String createTable(Connection c, String table, String sourceTable) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + table
              + " (id uuid PRIMARY KEY, aggregate_type varchar(100) NOT NULL,"
              + " aggregate_id varchar(255) NOT NULL, event_type varchar(100) NOT NULL,"
              + " payload text NOT NULL, status varchar(20) NOT NULL,"
              + " created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)");
      st.execute("CREATE INDEX " + table + "_pickup_ix ON " + table + " (status, created_at)");
      st.execute(
          "INSERT INTO "
              + table
              + " SELECT id, aggregate_type, aggregate_id, event_type, payload, 'pending',"
              + " created_at, created_at FROM "
              + sourceTable);
      st.execute("VACUUM ANALYZE " + table);
    }
    return table;
  }

  /** Drains until done or until {@code budgetSeconds} have passed. */
  static DrainResult run(TestDatabase db, String table, long total, double budgetSeconds)
      throws Exception {
    long rows = 0;
    long chars = 0;
    long start;
    boolean finished = false;
    try (Connection c = db.open();
        PreparedStatement select =
            c.prepareStatement(
                "SELECT id, event_type, payload FROM "
                    + table
                    + " WHERE status = 'pending' ORDER BY created_at LIMIT 100 FOR UPDATE");
        PreparedStatement processing =
            c.prepareStatement(
                "UPDATE " + table + " SET status = 'processing', updated_at = now() WHERE id = ?");
        PreparedStatement sent =
            c.prepareStatement(
                "UPDATE " + table + " SET status = 'sent', updated_at = now() WHERE id = ?")) {
      c.setAutoCommit(true);
      start = System.nanoTime();
      while ((System.nanoTime() - start) / 1e9 < budgetSeconds) {
        List<UUID> ids = new ArrayList<>(100);
        List<String> payloads = new ArrayList<>(100);
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            ids.add(rs.getObject("id", UUID.class));
            payloads.add(rs.getString("payload"));
          }
        }
        if (ids.isEmpty()) {
          finished = true;
          break;
        }
        for (int i = 0; i < ids.size(); i++) {
          processing.setObject(1, ids.get(i));
          processing.executeUpdate();
          chars += payloads.get(i).length(); // the "publisher"
          sent.setObject(1, ids.get(i));
          sent.executeUpdate();
          rows++;
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new DrainResult(
        "seed articles' loop (100/select, 2 autocommit UPDATEs/row)",
        rows,
        seconds,
        finished
            ? ""
            : String.format(
                "stopped after %.0f s budget: %,d of %,d rows", budgetSeconds, rows, total));
  }
}
