package dev.lambdaoutbox.bench;

import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * gruelbox transaction-outbox on the same database: its own table (created by its own migrations,
 * in a schema of its own), filled with {@code total} scheduled calls of a method that only counts,
 * then drained by its {@code flush()} loop with a same-thread submitter. It gets one reused
 * connection, as from a pool; its stock {@code fromConnectionDetails} would open one per
 * transaction.
 */
final class GruelboxDrain {
  /** The scheduled call. */
  public interface Handler {
    void handle(long n);
  }

  /** Counts calls; the "publisher". */
  public static final class CountingHandler implements Handler {
    final AtomicLong calls = new AtomicLong();

    @Override
    public void handle(long n) {
      calls.incrementAndGet();
    }
  }

  private GruelboxDrain() {}

  static DrainResult run(TestDatabase db, String schema, long total, double budgetSeconds)
      throws Exception {
    try (Connection admin = db.open();
        Statement st = admin.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      st.execute("CREATE SCHEMA " + schema);
    }
    String url =
        db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    CountingHandler handler = new CountingHandler();
    try (SingleConnectionDataSource ds =
        new SingleConnectionDataSource(
            DriverManager.getConnection(url, db.user(), db.password()))) {
      ThreadLocalContextTransactionManager tm = TransactionManager.fromDataSource(ds);
      Persistor persistor = Persistor.forDialect(Dialect.POSTGRESQL_9);
      TransactionOutbox scheduler =
          TransactionOutbox.builder()
              .transactionManager(tm)
              .persistor(persistor)
              .instantiator(Instantiator.using(c -> handler))
              .submitter((entry, processor) -> {}) // leave them for flush()
              .build();
      tm.inTransaction(() -> scheduler.schedule(Handler.class).handle(0));
      cloneEntries(ds.getConnection(), total - 1);

      TransactionOutbox processor =
          TransactionOutbox.builder()
              .transactionManager(tm)
              .persistor(persistor)
              .instantiator(Instantiator.using(c -> handler))
              .submitter(Submitter.withExecutor(Runnable::run))
              .build();
      long start = System.nanoTime();
      boolean finished = false;
      while ((System.nanoTime() - start) / 1e9 < budgetSeconds) {
        if (!processor.flush()) {
          finished = true;
          break;
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long done = handler.calls.get();
      return new DrainResult(
          "gruelbox transaction-outbox 4.2 flush()",
          done,
          seconds,
          finished
              ? ""
              : String.format(
                  "stopped after %.0f s budget: %,d of %,d entries", budgetSeconds, done, total));
    } finally {
      try (Connection admin = db.open();
          Statement st = admin.createStatement()) {
        st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }

  /**
   * Copies the one scheduled entry {@code copies} times with fresh ids, set-based, all due now:
   * what scheduling that many calls would leave in its table, without waiting for it.
   */
  private static void cloneEntries(Connection c, long copies) throws Exception {
    c.setAutoCommit(true);
    List<String> columns = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT column_name FROM information_schema.columns WHERE table_schema ="
                    + " current_schema() AND table_name = 'txno_outbox' ORDER BY ordinal_position")) {
      while (rs.next()) {
        columns.add(rs.getString(1));
      }
    }
    List<String> values = new ArrayList<>();
    for (String column : columns) {
      values.add(
          switch (column.toLowerCase(java.util.Locale.ROOT)) {
            case "id" -> "gen_random_uuid()::text";
            case "uniquerequestid" -> "NULL";
            case "nextattempttime" -> "now() - interval '1 minute'";
            default -> column;
          });
    }
    try (Statement st = c.createStatement()) {
      st.execute("UPDATE txno_outbox SET nextAttemptTime = now() - interval '1 minute'");
      st.execute(
          "INSERT INTO txno_outbox ("
              + String.join(", ", columns)
              + ") SELECT "
              + String.join(", ", values)
              + " FROM txno_outbox, generate_series(1, "
              + copies
              + ")");
      st.execute("VACUUM ANALYZE txno_outbox");
    }
  }
}
