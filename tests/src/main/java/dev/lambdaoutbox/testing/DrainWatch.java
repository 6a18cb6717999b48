package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.OutboxTables;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Watches an outbox drain to its end state, as a user would check it: every committed event
 * received at the queue at least once, no row left in the outbox, no dead letter.
 */
public final class DrainWatch {
  private final TestDatabase db;
  private final OutboxTables tables;
  private final QueueDrainer drainer;
  private final List<String> committed;

  public DrainWatch(
      TestDatabase db, OutboxTables tables, QueueDrainer drainer, List<String> committed) {
    this.db = db;
    this.tables = tables;
    this.drainer = drainer;
    this.committed = List.copyOf(committed);
  }

  /**
   * Waits until every committed event arrived and the outbox table is empty, or {@code atMost}
   * passed; true when drained. Tolerates the database being away meanwhile.
   */
  public boolean awaitDrained(Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (System.nanoTime() < deadline) {
      if (drainer.missing(committed).isEmpty() && rowsLeftOrMinusOne() == 0) {
        return true;
      }
      Thread.sleep(250);
    }
    return false;
  }

  /**
   * Waits until at most {@code rows} rows are left in the outbox table (the pollers got that far),
   * or {@code atMost} passed; returns the rows left.
   */
  public long awaitRowsLeftAtMost(long rows, Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    long left = rowsLeftOrMinusOne();
    while ((left < 0 || left > rows) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      left = rowsLeftOrMinusOne();
    }
    return left;
  }

  /** Committed events not received (yet). */
  public Set<String> missing() {
    return drainer.missing(committed);
  }

  /** Rows still in the outbox table, whatever their status. */
  public long rowsLeft() {
    return count(tables.messages(), "");
  }

  /** Rows still waiting to be published. */
  public long pendingLeft() {
    return count(tables.messages(), " WHERE status = 'PENDING'");
  }

  public long deadLetters() {
    return count(tables.deadLetters(), "");
  }

  /** E.g. "2,000 committed; 2,000 distinct events in 2,013 messages (...); 0 rows left; ...". */
  public String report() {
    return String.format(
        "%,d committed; %s; %,d missing; %,d rows left in the outbox (%,d pending); %,d dead"
            + " letters",
        committed.size(),
        drainer.summary(),
        missing().size(),
        rowsLeft(),
        pendingLeft(),
        deadLetters());
  }

  private long rowsLeftOrMinusOne() {
    try {
      return rowsLeft();
    } catch (IllegalStateException e) {
      return -1; // the database is away for now; asked again shortly
    }
  }

  private long count(String table, String where) {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table + where)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("could not count the rows of " + table + " in " + db, e);
    }
  }
}
