package dev.lambdaoutbox.store.rewind;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.internal.RewindSql;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableRewind.Candidate;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableRewind.Position;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPacing;
import dev.lambdaoutbox.store.model.rewind.RewindPreview;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.model.rewind.RewindStep;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link RewindStore}: a step is one transaction of the executor that walks the range's sent
 * rows a window of index entries at a time, then copies what it found in their original order.
 */
final class SqlRewindStore implements RewindStore {
  /**
   * Sent rows one statement of the walk reads past its position, matching or not, and windows one
   * step reads at most: a step reads at most 100,000 index entries, however rare the events it
   * looks for.
   */
  static final int SCAN_WINDOW = 5_000;

  static final int MAX_WINDOWS = 20;

  private final SqlExecutor executor;
  private final OutboxTables tables;
  private final RewindSql sql;
  private final Clock clock;

  SqlRewindStore(SqlExecutor executor, OutboxTables tables, Clock clock) {
    this.executor = Objects.requireNonNull(executor, "executor");
    this.tables = Objects.requireNonNull(tables, "tables");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sql = RewindSql.of(executor.dialect(), tables);
  }

  @Override
  public RewindStep step(
      RewindRange range,
      String destination,
      RewindPacing pacing,
      int limit,
      RewindCursor cursor,
      AuditInfo audit) {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(pacing, "pacing");
    Objects.requireNonNull(audit, "audit");
    String problem = Destinations.problemWith(destination);
    if (problem != null) {
      throw new IllegalArgumentException("destination " + problem);
    }
    if (limit < 1 || limit > MAX_EVENTS_PER_STEP) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + MAX_EVENTS_PER_STEP + ", not " + limit);
    }
    String fingerprint = RewindStore.fingerprint(range, destination, pacing);
    if (cursor != null && !cursor.fingerprint().equals(fingerprint)) {
      throw new IllegalArgumentException(
          "the cursor belongs to a rewind of another range, destination or rate");
    }
    DatabaseClock.sync(clock); // before the transaction: its copies are due from the time
    return executor.inTransaction(
        "rewind sent rows of " + tables.messages(),
        s -> step(s, range, destination, pacing, limit, cursor, fingerprint, audit));
  }

  private RewindStep step(
      SqlSession s,
      RewindRange range,
      String destination,
      RewindPacing pacing,
      int limit,
      RewindCursor cursor,
      String fingerprint,
      AuditInfo audit) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
    UUID rewindId = cursor == null ? UuidV7.generate() : cursor.rewindId();
    Position after =
        cursor == null
            ? new Position(range.sentFrom(), RewindCursor.NO_ID)
            : new Position(cursor.afterAt(), cursor.afterId());
    Walk walk = walk(s, range, after, limit);
    List<Candidate> found = new ArrayList<>(walk.found);
    // Each aggregate's rows in the order they were sent, and rows sent at the same time in the
    // order they were written: the copies' seq, taken in this order, is the order the poller
    // publishes them in, one at a time per aggregate when it orders by aggregate.
    found.sort(Comparator.comparing(Candidate::sentAt).thenComparingLong(Candidate::seq));
    Set<UUID> already =
        cursor == null || found.isEmpty()
            ? Set.of()
            : new HashSet<>(
                sql.rewind().copiesOf(s, rewindId, found.stream().map(Candidate::id).toList()));
    List<UUID> originals =
        found.stream().map(Candidate::id).filter(id -> !already.contains(id)).toList();
    List<Instant> due =
        pacing.dueTimes(now, cursor == null ? null : cursor.nextDueAt(), originals.size());
    List<UUID> copyIds = originals.stream().map(id -> UuidV7.generate()).toList();
    sql.rewind().copy(s, originals, copyIds, due, rewindId, destination, now);
    int copied =
        originals.isEmpty()
            ? 0
            : (int)
                sql.rewind().copiesOf(s, rewindId, originals).stream()
                    .filter(id -> !already.contains(id))
                    .count();
    long copiedInAll = (cursor == null ? 0 : cursor.copied()) + copied;
    Instant firstDue = due.isEmpty() ? null : due.get(0);
    Instant lastDue = due.isEmpty() ? null : due.get(due.size() - 1);
    Instant nextDue =
        lastDue != null ? pacing.next(lastDue) : cursor == null ? now : cursor.nextDueAt();
    RewindCursor next =
        walk.done
            ? null
            : new RewindCursor(
                rewindId,
                walk.position.sentAt(),
                walk.position.id(),
                nextDue,
                copiedInAll,
                fingerprint);
    Instant reached = walk.done ? range.sentTo() : walk.position.sentAt();
    sql.audit()
        .recordRewind(
            s,
            rewindId,
            details(
                range,
                destination,
                pacing,
                after,
                reached,
                copied,
                already.size(),
                firstDue,
                lastDue,
                walk.done),
            audit,
            now);
    return new RewindStep(
        rewindId, copied, already.size(), firstDue, lastDue, reached, copiedInAll, next);
  }

  /** What the walk of one step found, and where it stopped. */
  private record Walk(List<Candidate> found, Position position, boolean done) {}

  /**
   * Up to {@code limit} matching rows past {@code after}, a window of index entries at a time,
   * never stopping inside a group of rows sent at the same time (so that a later step cannot find
   * an aggregate's earlier row), unless a group alone is larger than a window or the limit.
   */
  private Walk walk(SqlSession s, RewindRange range, Position after, int limit) {
    List<Candidate> found = new ArrayList<>();
    Position position = after;
    for (int window = 0; window < MAX_WINDOWS; window++) {
      Position from = position;
      Optional<Position> end = sql.rewind().scanEnd(s, range, from, SCAN_WINDOW);
      Position upTo =
          end.map(
                  e ->
                      e.sentAt().isAfter(from.sentAt())
                          ? new Position(e.sentAt(), RewindCursor.NO_ID) // whole groups only
                          : e)
              .orElse(null);
      int wanted = limit - found.size();
      List<Candidate> rows = sql.rewind().matching(s, range, position, upTo, wanted + 1);
      if (rows.size() > wanted) {
        Instant boundary = rows.get(wanted).sentAt();
        List<Candidate> whole =
            rows.subList(0, wanted).stream().filter(c -> !c.sentAt().equals(boundary)).toList();
        if (whole.isEmpty()) {
          Candidate last = rows.get(wanted - 1);
          found.addAll(rows.subList(0, wanted));
          return new Walk(found, new Position(last.sentAt(), last.id()), false);
        }
        found.addAll(whole);
        return new Walk(found, new Position(boundary, RewindCursor.NO_ID), false);
      }
      found.addAll(rows);
      if (upTo == null) {
        return new Walk(found, position, true);
      }
      position = upTo;
    }
    return new Walk(found, position, false);
  }

  private static String details(
      RewindRange range,
      String destination,
      RewindPacing pacing,
      Position from,
      Instant reached,
      int copied,
      int alreadyCopied,
      Instant firstDue,
      Instant lastDue,
      boolean done) {
    ObjectNode root = JsonSupport.mapper().createObjectNode();
    root.put("destinationOverride", destination);
    ObjectNode r = root.putObject("rewind");
    r.put("sentFrom", range.sentFrom().toString());
    r.put("sentTo", range.sentTo().toString());
    r.put("eventType", range.eventType());
    r.put("aggregateType", range.aggregateType());
    r.put("aggregateId", range.aggregateId());
    r.put("ratePerSecond", pacing.eventsPerSecond());
    r.put("stepFromSentAt", from.sentAt().toString());
    r.put("reachedSentAt", reached.toString());
    r.put("copied", copied);
    r.put("alreadyCopied", alreadyCopied);
    r.put("firstDueAt", firstDue == null ? null : firstDue.toString());
    r.put("lastDueAt", lastDue == null ? null : lastDue.toString());
    r.put("done", done);
    return root.toString();
  }

  @Override
  public RewindPreview preview(RewindRange range, int sampleSize, int previewChars) {
    Objects.requireNonNull(range, "range");
    return executor.inTransaction(
        "look at the sent rows of " + tables.messages() + " a rewind would copy",
        s -> sql.rewind().preview(s, range, PREVIEW_SCAN_CAP, sampleSize, previewChars));
  }
}
