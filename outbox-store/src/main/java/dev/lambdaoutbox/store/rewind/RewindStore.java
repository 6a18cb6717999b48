package dev.lambdaoutbox.store.rewind;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPacing;
import dev.lambdaoutbox.store.model.rewind.RewindPreview;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.model.rewind.RewindStep;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Clock;

/**
 * Rewinds: delivered events (sent rows the poller keeps for its retention period) sent again, as
 * copies, to one destination, to back-fill a subscriber that came later.
 *
 * <p>A rewind runs in steps, each one transaction and at most {@link #MAX_EVENTS_PER_STEP} copies:
 * it walks the range's sent rows in the order they were sent ({@code sent_at}, then each
 * aggregate's {@code seq}), and writes for each row a new PENDING outbox row, its copy, with the
 * same aggregate, event type, payload, headers and occurrence time, the event's id as {@code
 * rewind_of} (the message's {@code eventId}), the destination given, and a due time paced by {@link
 * RewindPacing}. The poller publishes the copies like any other row, retries included; with
 * ordering by aggregate, one copy of an aggregate at a time, in the order written. Each step writes
 * one audit row ({@code REWIND}) in its transaction, and answers a {@link RewindCursor} from which
 * the next step goes on; a step sent again copies nothing twice.
 *
 * <p>Built beside the dead-letter store, on the same executor, tables and clock ({@link
 * DeadLetterStore.Builder#rewinds}).
 */
public interface RewindStore {
  /** The most copies one step writes. */
  int MAX_EVENTS_PER_STEP = 1_000;

  /**
   * The next step of a rewind of {@code range} to {@code destination}: up to {@code limit} copies,
   * paced by {@code pacing}; from the start of the range when {@code cursor} is null, else from
   * where it stands (it must be one a step of the same range, destination and pacing returned).
   */
  RewindStep step(
      RewindRange range,
      String destination,
      RewindPacing pacing,
      int limit,
      RewindCursor cursor,
      AuditInfo audit);

  /**
   * What a rewind of {@code range} would copy, changing nothing: counted over the range's first
   * {@link #PREVIEW_SCAN_CAP} sent rows, and the first {@code sampleSize} of them, each payload cut
   * to {@code previewChars} characters.
   */
  RewindPreview preview(RewindRange range, int sampleSize, int previewChars);

  /** The most sent rows a dry run reads to count. */
  int PREVIEW_SCAN_CAP = 100_000;

  /**
   * The fingerprint that ties a cursor to the rewind that returned it: the range, the destination
   * and the pace.
   */
  static String fingerprint(RewindRange range, String destination, RewindPacing pacing) {
    String text = range.describe() + "|" + destination + "|" + pacing.eventsPerSecond();
    return Integer.toHexString(text.hashCode());
  }

  /** A store whose statements run on {@code executor}, in its dialect, over {@code tables}. */
  static RewindStore over(SqlExecutor executor, OutboxTables tables, Clock clock) {
    return new SqlRewindStore(executor, tables, clock);
  }
}
