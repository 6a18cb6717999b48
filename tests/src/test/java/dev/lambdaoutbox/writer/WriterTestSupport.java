package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** What the writer's tests read back from the tables, and how they run work side by side. */
final class WriterTestSupport {
  private WriterTestSupport() {}

  /** The key table: each held idempotency key and the event holding it. */
  static Map<String, UUID> heldKeys(TestDatabase db, OutboxTables tables) throws SQLException {
    Map<String, UUID> keys = new HashMap<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT idempotency_key, event_id FROM " + tables.idempotencyKeys())) {
      while (rs.next()) {
        keys.put(rs.getString(1), UUID.fromString(rs.getString(2)));
      }
    }
    return keys;
  }

  /** The single number {@code sql} selects. */
  static long count(TestDatabase db, String sql) throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Runs every task on a thread of its own and returns their results, in order. */
  static <T> List<T> runAll(List<Callable<T>> tasks) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    try {
      List<T> results = new ArrayList<>();
      for (Future<T> f : pool.invokeAll(tasks)) {
        results.add(f.get());
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
