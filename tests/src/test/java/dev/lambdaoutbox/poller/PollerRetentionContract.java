package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The retention purge keeps up with a write rate the old limit of 5,000 rows a run could not: a
 * schedule of invocations, each finding a minute's worth of sent rows newly past retention, or of
 * idempotency keys newly past the window.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PollerRetentionContract {
  /** 250 events a second on a one-minute schedule: 15,000 rows a run, three times the old limit. */
  static final int ROWS_A_MINUTE = 15_000;

  private PollerTestBed bed;

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    bed = new PollerTestBed("retention", database());
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void everyScheduledRun_purgesAllThatPassedRetentionSinceTheLast() throws Exception {
    PollerHandler handler =
        bed.handler(
            bed.config(
                "OUTBOX_RETENTION_HOURS", "1",
                "OUTBOX_DEFAULT_DESTINATION", "arn:aws:sns:us-east-1:123456789012:unused"));
    for (int run = 1; run <= 3; run++) {
      bed.clock.advance(Duration.ofMinutes(1));
      Instant cutoff = bed.clock.instant().minus(Duration.ofHours(1));
      sentRows(ROWS_A_MINUTE, cutoff); // sent in the minute that just passed retention
      sentRows(100, cutoff.plus(Duration.ofMinutes(30))); // within it for a while yet

      bed.invoke(handler);

      assertThat(bed.count(bed.tables.messages())).as("run %d", run).isEqualTo(100L * run);
    }
    assertThat(bed.logs("WARN")).isEmpty();
    assertThat(bed.logs("ERROR")).isEmpty();
  }

  @Test
  void everyScheduledRun_freesTheIdempotencyKeysPastTheDefaultWindowOf24Hours() throws Exception {
    PollerHandler handler =
        bed.handler(
            bed.config("OUTBOX_DEFAULT_DESTINATION", "arn:aws:sns:us-east-1:123456789012:unused"));
    for (int run = 1; run <= 3; run++) {
      bed.clock.advance(Duration.ofMinutes(1));
      Instant cutoff = bed.clock.instant().minus(Duration.ofHours(24));
      try (Connection c = bed.db.open()) {
        HistoryLoader loader = new HistoryLoader(c, bed.db.dialect(), bed.tables);
        loader.idempotencyKeys("expired-" + run + "-", ROWS_A_MINUTE, cutoff);
        loader.idempotencyKeys("held-" + run + "-", 100, cutoff.plus(Duration.ofMinutes(30)));
      }

      bed.invoke(handler);

      assertThat(bed.count(bed.tables.idempotencyKeys())).as("run %d", run).isEqualTo(100L * run);
    }
    assertThat(bed.logs("WARN")).isEmpty();
    assertThat(bed.logs("ERROR")).isEmpty();
  }

  /** {@code count} SENT rows, sent in the {@code count} ms before {@code before}. */
  private void sentRows(int count, Instant before) throws SQLException {
    try (Connection c = bed.db.open()) {
      new HistoryLoader(c, bed.db.dialect(), bed.tables).sent(count, before);
    }
  }
}
