package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.store.deadletter.internal.AuditRows;
import dev.lambdaoutbox.store.deadletter.internal.Conditions;
import dev.lambdaoutbox.store.deadletter.internal.DeadLetterRows;
import dev.lambdaoutbox.store.deadletter.internal.OutboxLookups;
import dev.lambdaoutbox.store.deadletter.internal.OutboxReinsert;
import dev.lambdaoutbox.store.deadletter.internal.ResultCollector;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider.SqlWork;
import dev.lambdaoutbox.store.jdbc.internal.DeadlockRetry;
import dev.lambdaoutbox.writer.Destinations;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link DeadLetterStore} over JDBC, for PostgreSQL and MySQL/MariaDB, on the one connection of
 * a {@link JdbcConnectionProvider}.
 */
final class JdbcDeadLetterStore implements DeadLetterStore {
  private final JdbcConnectionProvider connections;
  private final SqlDialect dialect;
  private final OutboxTables tables;
  private final Clock clock;
  private final int batchSize;
  private final AuditRows auditRows;
  private final OutboxLookups lookups;
  private final OutboxReinsert reinsert;

  JdbcDeadLetterStore(Builder b) {
    this.connections = b.connections;
    this.dialect = connections.dialect();
    this.tables = b.tables;
    this.clock = b.clock;
    this.batchSize = b.batchSize;
    this.auditRows = new AuditRows(tables, dialect);
    this.lookups = new OutboxLookups(tables, dialect);
    this.reinsert = new OutboxReinsert(tables, dialect);
  }

  @Override
  public DeadLetterPage list(
      DeadLetterFilter filter, DeadLetterCursor after, int limit, int payloadPreviewChars) {
    requireLimit(limit);
    if (payloadPreviewChars < 1) {
      throw new IllegalArgumentException("payloadPreviewChars must be positive");
    }
    Conditions where = new Conditions(dialect).matching(filter).after(after);
    String sql =
        "SELECT "
            + DeadLetterRows.previewColumns(payloadPreviewChars)
            + " FROM "
            + tables.deadLetters()
            + where.where()
            + " ORDER BY dead_at, id LIMIT "
            + (limit + 1);
    return read(
        "list dead letters",
        c -> {
          List<DeadLetterPage.Entry> entries = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            where.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                entries.add(
                    new DeadLetterPage.Entry(
                        DeadLetterRows.read(rs, dialect), rs.getInt("payload_length")));
              }
            }
          }
          if (entries.size() <= limit) {
            return new DeadLetterPage(entries, null);
          }
          List<DeadLetterPage.Entry> page = entries.subList(0, limit);
          return new DeadLetterPage(page, page.get(limit - 1).deadLetter().position());
        });
  }

  @Override
  public DeadLetterSummary summarize(DeadLetterFilter filter) {
    Conditions where = new Conditions(dialect).matching(filter);
    String sql =
        "SELECT error_code, event_type, count(*) AS row_count, min(dead_at) AS oldest_dead_at,"
            + " max(dead_at) AS newest_dead_at FROM "
            + tables.deadLetters()
            + where.where()
            + " GROUP BY error_code, event_type ORDER BY row_count DESC, error_code, event_type";
    return read(
        "summarize dead letters",
        c -> {
          List<DeadLetterSummary.Group> groups = new ArrayList<>();
          long total = 0;
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            where.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                long count = rs.getLong("row_count");
                total += count;
                groups.add(
                    new DeadLetterSummary.Group(
                        rs.getString("error_code"),
                        rs.getString("event_type"),
                        count,
                        JdbcValues.getInstant(rs, "oldest_dead_at", dialect),
                        JdbcValues.getInstant(rs, "newest_dead_at", dialect)));
              }
            }
          }
          return new DeadLetterSummary(total, groups);
        });
  }

  @Override
  public long count() {
    return read(
        "count dead letters",
        c -> {
          try (PreparedStatement ps =
                  c.prepareStatement("SELECT count(*) FROM " + tables.deadLetters());
              ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
          }
        });
  }

  @Override
  public DeadLetterActionResult replay(
      List<UUID> ids, String destinationOverride, boolean dryRun, AuditInfo audit) {
    requireIds(ids);
    requireDestination(destinationOverride);
    ResultCollector result = new ResultCollector(dryRun);
    for (List<UUID> chunk : chunks(ids)) {
      runBatch(
          "replay",
          result,
          c -> {
            ResultCollector.Batch batch = new ResultCollector.Batch();
            List<DeadLetter> rows = selectByIds(c, chunk, !dryRun);
            skipMissing(c, chunk, rows, batch);
            if (dryRun) {
              planReplay(c, rows, result.claimedKeys(), batch);
            } else {
              moveToOutbox(c, rows, destinationOverride, audit, batch);
            }
            return batch.inOrderOf(chunk);
          });
    }
    return result.result(false);
  }

  @Override
  public DeadLetterActionResult replayMatching(
      DeadLetterFilter filter,
      int limit,
      String destinationOverride,
      boolean dryRun,
      AuditInfo audit) {
    requireLimit(limit);
    requireDestination(destinationOverride);
    ResultCollector result = new ResultCollector(dryRun);
    DeadLetterCursor after = null;
    int remaining = limit;
    while (remaining > 0) {
      int size = Math.min(batchSize, remaining);
      DeadLetterCursor position = after;
      List<DeadLetter> examined = new ArrayList<>();
      ResultCollector.Batch batch =
          runBatch(
              "replay",
              result,
              c -> {
                examined.clear();
                ResultCollector.Batch b = new ResultCollector.Batch();
                List<DeadLetter> rows = selectMatching(c, filter, position, size, !dryRun);
                examined.addAll(rows);
                if (dryRun) {
                  planReplay(c, rows, result.claimedKeys(), b);
                } else {
                  moveToOutbox(c, rows, destinationOverride, audit, b);
                }
                return b;
              });
      if (examined.isEmpty()) {
        break;
      }
      remaining -= batch.examined();
      after = examined.get(examined.size() - 1).position();
    }
    boolean more = remaining == 0 && anyMatching(filter, after);
    return result.result(more);
  }

  @Override
  public DeadLetterActionResult discard(List<UUID> ids, boolean dryRun, AuditInfo audit) {
    requireIds(ids);
    ResultCollector result = new ResultCollector(dryRun);
    for (List<UUID> chunk : chunks(ids)) {
      runBatch(
          "discard",
          result,
          c -> {
            ResultCollector.Batch batch = new ResultCollector.Batch();
            List<DeadLetter> rows = selectByIds(c, chunk, !dryRun);
            Set<UUID> found = new HashSet<>();
            rows.forEach(r -> found.add(r.id()));
            for (UUID id : chunk) {
              if (!found.contains(id)) {
                batch.skipped(id, SkipReason.NOT_DEAD);
              }
            }
            if (!dryRun) {
              auditRows.record(c, AuditEntry.DISCARD, rows, null, audit, now());
              delete(c, rows);
            }
            rows.forEach(r -> batch.applied(r.id()));
            return batch.inOrderOf(chunk);
          });
    }
    return result.result(false);
  }

  @Override
  public List<AuditEntry> auditTrail(UUID deadLetterId) {
    return read("read the audit trail of " + deadLetterId, c -> auditRows.trail(c, deadLetterId));
  }

  /** Puts locked dead rows back into the outbox, audits and deletes the ones that went in. */
  private void moveToOutbox(
      Connection c,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      ResultCollector.Batch batch)
      throws SQLException {
    Instant now = now();
    List<DeadLetter> moved = new ArrayList<>();
    for (DeadLetter row : rows) {
      SkipReason skip = reinsert.insert(c, row, destinationOverride, now);
      if (skip == null) {
        moved.add(row);
        batch.applied(row.id());
      } else {
        batch.skipped(row.id(), skip);
      }
    }
    auditRows.record(c, AuditEntry.REPLAY, moved, destinationOverride, audit, now);
    delete(c, moved);
  }

  /** What {@link #moveToOutbox} would do, found by reading only. */
  private void planReplay(
      Connection c, List<DeadLetter> rows, Set<String> claimedKeys, ResultCollector.Batch batch)
      throws SQLException {
    Set<UUID> inOutbox = lookups.idsInOutbox(c, rows.stream().map(DeadLetter::id).toList());
    Set<String> keys = new HashSet<>();
    rows.forEach(
        r -> {
          if (r.idempotencyKey() != null) {
            keys.add(r.idempotencyKey());
          }
        });
    Map<String, UUID> holders = lookups.keyHolders(c, keys);
    Set<String> claimed = new HashSet<>(claimedKeys);
    for (DeadLetter row : rows) {
      String key = row.idempotencyKey();
      if (inOutbox.contains(row.id())) {
        batch.skipped(row.id(), SkipReason.ALREADY_IN_OUTBOX);
      } else if (key != null && (holders.containsKey(key) || claimed.contains(key))) {
        batch.skipped(row.id(), SkipReason.IDEMPOTENCY_KEY_TAKEN);
      } else {
        if (key != null) {
          claimed.add(key);
          batch.claimedKey(key);
        }
        batch.applied(row.id());
      }
    }
  }

  /** Reports the requested ids that are not dead letters. */
  private void skipMissing(
      Connection c, List<UUID> requested, List<DeadLetter> found, ResultCollector.Batch batch)
      throws SQLException {
    Set<UUID> dead = new HashSet<>();
    found.forEach(r -> dead.add(r.id()));
    List<UUID> missing = requested.stream().filter(id -> !dead.contains(id)).toList();
    Set<UUID> inOutbox = lookups.idsInOutbox(c, missing);
    for (UUID id : missing) {
      batch.skipped(id, inOutbox.contains(id) ? SkipReason.ALREADY_IN_OUTBOX : SkipReason.NOT_DEAD);
    }
  }

  private List<DeadLetter> selectByIds(Connection c, List<UUID> ids, boolean lock)
      throws SQLException {
    Conditions where = new Conditions(dialect).idIn("id", ids);
    String sql =
        "SELECT "
            + DeadLetterRows.COLUMNS
            + " FROM "
            + tables.deadLetters()
            + where.where()
            + " ORDER BY id"
            + (lock ? " FOR UPDATE" : "");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      where.bind(ps, 1);
      try (ResultSet rs = ps.executeQuery()) {
        return DeadLetterRows.readAll(rs, dialect);
      }
    }
  }

  private List<DeadLetter> selectMatching(
      Connection c, DeadLetterFilter filter, DeadLetterCursor after, int limit, boolean lock)
      throws SQLException {
    Conditions where = new Conditions(dialect).matching(filter).after(after);
    String sql =
        "SELECT "
            + DeadLetterRows.COLUMNS
            + " FROM "
            + tables.deadLetters()
            + where.where()
            + " ORDER BY dead_at, id LIMIT "
            + limit
            + (lock ? " FOR UPDATE" : "");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      where.bind(ps, 1);
      try (ResultSet rs = ps.executeQuery()) {
        return DeadLetterRows.readAll(rs, dialect);
      }
    }
  }

  private boolean anyMatching(DeadLetterFilter filter, DeadLetterCursor after) {
    Conditions where = new Conditions(dialect).matching(filter).after(after);
    String sql = "SELECT 1 FROM " + tables.deadLetters() + where.where() + " LIMIT 1";
    return read(
        "look for more matching dead letters",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            where.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next();
            }
          }
        });
  }

  /** Deletes rows this transaction holds locked; all of them must go. */
  private void delete(Connection c, List<DeadLetter> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    Conditions where =
        new Conditions(dialect).idIn("id", rows.stream().map(DeadLetter::id).toList());
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM " + tables.deadLetters() + where.where())) {
      where.bind(ps, 1);
      int deleted = ps.executeUpdate();
      if (deleted != rows.size()) {
        throw new IllegalStateException(
            "deleted " + deleted + " of " + rows.size() + " locked dead letters; rolling back");
      }
    }
  }

  private ResultCollector.Batch runBatch(
      String action, ResultCollector result, SqlWork<ResultCollector.Batch> work) {
    ResultCollector.Batch batch;
    try {
      batch = DeadlockRetry.inTransaction(connections, action + " dead letters", work);
    } catch (RuntimeException e) {
      DeadLetterActionResult committed = result.result(false);
      throw new DeadLetterActionException(
          action
              + " stopped: the failing batch was rolled back; "
              + committed.batches()
              + " earlier batch(es) stay committed. "
              + e.getMessage(),
          committed,
          e);
    }
    result.merge(batch);
    return batch;
  }

  private <T> T read(String what, SqlWork<T> work) {
    return connections.inTransaction(what + " in " + tables.deadLetters(), work);
  }

  private List<List<UUID>> chunks(List<UUID> ids) {
    List<List<UUID>> chunks = new ArrayList<>();
    for (int from = 0; from < ids.size(); from += batchSize) {
      chunks.add(List.copyOf(ids.subList(from, Math.min(ids.size(), from + batchSize))));
    }
    return chunks;
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  private static void requireLimit(int limit) {
    if (limit < 1 || limit > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + MAX_ROWS_PER_REQUEST + ", not " + limit);
    }
  }

  private static void requireIds(List<UUID> ids) {
    if (ids.isEmpty() || ids.size() > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "ids must name 1 to " + MAX_ROWS_PER_REQUEST + " dead letters, not " + ids.size());
    }
    if (new HashSet<>(ids).size() != ids.size()) {
      throw new IllegalArgumentException("ids must not repeat an id");
    }
  }

  private static void requireDestination(String destination) {
    if (destination != null) {
      String problem = Destinations.problemWith(destination);
      if (problem != null) {
        throw new IllegalArgumentException("destination " + problem);
      }
    }
  }
}
