package dev.lambdaoutbox.store.internal.rows;

import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.sql.Row;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Results every dialect reads the same way. */
public final class Results {
  private Results() {}

  /** A query plan: every row, one line each, columns separated by tabs. */
  public static String planLines(List<Row> rows) {
    StringBuilder plan = new StringBuilder();
    for (Row row : rows) {
      plan.append(String.join("\t", row.values())).append('\n');
    }
    return plan.toString();
  }

  /**
   * The backlog from {@code oldest_not_before} (in the future when every row waits for its time: no
   * age), {@code dead_letters}, {@code destinations_down}, {@code destinations_misconfigured},
   * {@code stale_destinations}, {@code parked_keys}, {@code parked_events} and {@code
   * waiting_on_misconfigured}.
   */
  public static Backlog backlog(Row row, Instant now) {
    Instant oldest = row.instant("oldest_not_before");
    Duration age =
        oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
    return new Backlog(
        age,
        row.longValue("dead_letters"),
        row.integer("destinations_down"),
        row.integer("destinations_misconfigured"),
        row.integer("stale_destinations"),
        row.longValue("parked_keys"),
        row.longValue("parked_events"),
        row.longValue("waiting_on_misconfigured"));
  }

  /**
   * A summary from groups of {@code error_code, event_type, row_count, oldest_dead_at,
   * newest_dead_at}.
   */
  public static DeadLetterSummary summary(List<Row> rows) {
    List<DeadLetterSummary.Group> groups = new ArrayList<>(rows.size());
    long total = 0;
    for (Row row : rows) {
      long count = row.longValue("row_count");
      total += count;
      groups.add(
          new DeadLetterSummary.Group(
              row.text("error_code"),
              row.text("event_type"),
              count,
              row.instant("oldest_dead_at"),
              row.instant("newest_dead_at")));
    }
    return new DeadLetterSummary(total, groups);
  }
}
