package dev.lambdaoutbox.store;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Defer;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Release;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link OutboxStore}: arguments checked here, each method one transaction of the executor (or,
 * for completions and destination health, of the second one), the SQL in the executor's dialect
 * home ({@link OutboxSql}).
 */
final class SqlOutboxStore implements OutboxStore {
  private final SqlExecutor executor;
  private final SqlExecutor completions;
  private final OutboxSql dialect;
  private final OutboxTables tables;
  private final boolean retain;
  private final Ordering ordering;
  private final boolean reserveAggregates;
  private final int parkingChunkSize;
  private final RetentionPass retention;
  private final DestinationHealthStore destinationHealth;
  private final DatabaseClock databaseClock;

  SqlOutboxStore(Builder b) {
    this.executor = b.executor;
    this.completions = b.secondConnection ? executor.secondConnection() : executor;
    this.tables = b.tables;
    StoreSql sql = StoreSql.of(executor.dialect(), tables);
    this.dialect = sql.outbox();
    this.retain = b.retention != null;
    this.ordering = b.ordering;
    this.reserveAggregates =
        b.reserveAggregates != null ? b.reserveAggregates : executor.dialect() == SqlDialect.MYSQL;
    this.parkingChunkSize = b.parkingChunkSize;
    List<PurgeStep> steps = new ArrayList<>();
    if (b.retention != null) {
      steps.add(new PurgeStep.SentRows(b.retention));
    }
    if (b.idempotencyWindow != null) {
      steps.add(new PurgeStep.IdempotencyKeys(b.idempotencyWindow));
    }
    this.retention = new RetentionPass(executor, sql.purge(), steps, PURGE_BATCH);
    this.destinationHealth = new SqlDestinationHealthStore(completions, sql.health(), tables);
    this.databaseClock = DatabaseClock.of(executor, Clock.systemUTC());
  }

  @Override
  public Claim claim(String owner, int limit, Instant now, Duration lease) {
    requireOwner(owner);
    if (limit <= 0) {
      throw new IllegalArgumentException("limit: must be positive, was " + limit);
    }
    Objects.requireNonNull(lease, "lease");
    if (lease.isZero() || lease.isNegative()) {
      throw new IllegalArgumentException("lease: must be positive, was " + lease);
    }
    Instant at = micros(now);
    Instant leaseEnd = micros(at.plus(lease));
    String what = "claim up to " + limit + " rows from " + tables.messages() + " for " + owner;
    if (ordering == Ordering.AGGREGATE && reserveAggregates) {
      KeyRotation.Reservation reserved =
          executor.inTransaction(
              "reserve up to " + limit + " aggregates of " + tables.messages() + " for " + owner,
              s -> KeyRotation.reserve(s, dialect, limit, at));
      return executor.inTransaction(
          what, s -> claimReserved(s, owner, reserved, limit, at, leaseEnd));
    }
    return executor.inTransaction(
        what,
        ordering == Ordering.AGGREGATE
            ? s -> claimHeads(s, owner, limit, at, leaseEnd)
            : s -> dialect.claim(s, owner, limit, at, leaseEnd));
  }

  /**
   * The ordered claim: the heads of many aggregates, in turn ({@link KeyRotation}). Short of the
   * limit, it also holds back the rows of the due index's front that are due before their waiting
   * heads ({@link OutboxSql#holdBehindWaitingHeads}), so that the due rows counted for fan-out
   * ({@link #countDue}) are rows a claim can take. Last, it moves the cursor the pollers share to
   * where its walk stopped.
   */
  private Claim claimHeads(SqlSession s, String owner, int limit, Instant at, Instant leaseEnd) {
    KeyRotation.Turn turn = KeyRotation.claim(s, dialect, owner, limit, at, leaseEnd);
    if (turn.claim().size() < limit) {
      dialect.holdBehindWaitingHeads(s, at, limit);
    }
    turn.record(s, dialect, at);
    return turn.claim();
  }

  /**
   * The ordered claim of the aggregates reserved first ({@link KeyRotation#reserve}): their heads
   * locked and leased, and, short of the limit, the waiting heads' rows held back as in {@link
   * #claimHeads}.
   */
  private Claim claimReserved(
      SqlSession s,
      String owner,
      KeyRotation.Reservation reserved,
      int limit,
      Instant at,
      Instant leaseEnd) {
    Claim claim = KeyRotation.claimReserved(s, dialect, owner, reserved, limit, at, leaseEnd);
    if (claim.size() < limit) {
      dialect.holdBehindWaitingHeads(s, at, limit);
    }
    return claim;
  }

  @Override
  public CompletionReport complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    requireOwner(owner);
    Objects.requireNonNull(outcomes, "outcomes");
    if (outcomes.isEmpty()) {
      return CompletionReport.empty();
    }
    Instant at = micros(now);
    Outcomes byKind = Outcomes.of(outcomes, at);
    return completions.inTransaction(
        "record " + outcomes.size() + " outcomes in " + tables.messages() + " for " + owner,
        s -> byKind.record(s, dialect, owner, at, retain, ordering, parkingChunkSize));
  }

  @Override
  public PurgeReport purge(Instant now, Duration timeSlice) {
    Objects.requireNonNull(timeSlice, "timeSlice");
    return retention.run(micros(now), timeSlice);
  }

  @Override
  public Backlog backlog(Instant now) {
    Instant at = micros(now);
    return executor.inTransaction(
        "read the backlog of " + tables.messages(),
        s -> dialect.backlog(s, at, at.minus(DestinationHealthStore.STALE_AFTER)));
  }

  @Override
  public DestinationHealthStore destinationHealth() {
    return destinationHealth;
  }

  @Override
  public DatabaseClock databaseClock() {
    return databaseClock;
  }

  @Override
  public int countDue(Instant now, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit: must be positive, was " + limit);
    }
    Instant at = micros(now);
    return executor.inTransaction(
        "count the due rows of " + tables.messages(),
        s -> dialect.countDue(s, at, limit, ordering == Ordering.AGGREGATE));
  }

  @Override
  public FullPayload fullPayload(UUID id, long maxBytes) {
    Objects.requireNonNull(id, "id");
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes: must be positive, was " + maxBytes);
    }
    return executor.inTransaction(
        "read the whole payload of row " + id + " of " + tables.messages(),
        s -> dialect.fullPayload(s, id, maxBytes));
  }

  @Override
  public boolean holdLease(String name, String owner, Instant now, Instant until) {
    requireOwner(owner);
    Objects.requireNonNull(name, "name");
    Instant at = micros(now);
    Instant end = micros(until);
    return executor.inTransaction(
        "hold the poller lease " + name + " in " + tables.pollerLeases() + " for " + owner,
        s -> dialect.holdLease(s, name, owner, at, end));
  }

  @Override
  public boolean releaseLease(String name, String owner, Instant now) {
    requireOwner(owner);
    Objects.requireNonNull(name, "name");
    Instant at = micros(now);
    return executor.inTransaction(
        "release the poller lease " + name + " in " + tables.pollerLeases() + " for " + owner,
        s -> dialect.releaseLease(s, name, owner, at));
  }

  private static void requireOwner(String owner) {
    if (owner == null || owner.isBlank() || owner.length() > Claim.MAX_OWNER_LENGTH) {
      throw new IllegalArgumentException(
          "owner: must be 1 to " + Claim.MAX_OWNER_LENGTH + " characters, was '" + owner + "'");
    }
  }

  private static Instant micros(Instant instant) {
    return Objects.requireNonNull(instant, "now").truncatedTo(ChronoUnit.MICROS);
  }

  /**
   * A batch of outcomes by kind, recorded in one transaction: published rows first, then retries,
   * dead letters (with ordering, each parking its aggregate first) and deferrals; then who holds
   * the rows whose outcome was not applied.
   */
  private record Outcomes(
      List<DeliveryOutcome> all,
      List<UUID> published,
      List<Retry> retries,
      List<DeadLetter> deadLetters,
      List<Defer> deferrals) {

    static Outcomes of(List<DeliveryOutcome> outcomes, Instant now) {
      List<UUID> published = new ArrayList<>();
      List<Retry> retries = new ArrayList<>();
      List<DeadLetter> deadLetters = new ArrayList<>();
      List<Defer> deferrals = new ArrayList<>();
      Set<UUID> seen = new HashSet<>();
      for (DeliveryOutcome outcome : outcomes) {
        Objects.requireNonNull(outcome, "outcomes: an outcome is null");
        if (!seen.add(outcome.id())) {
          throw new IllegalArgumentException(
              "outcomes: row " + outcome.id() + " has more than one outcome");
        }
        switch (outcome) {
          case Published p -> published.add(p.id());
          case Retry r -> {
            if (r.nextAttemptAt() == null) {
              throw new IllegalArgumentException(
                  "outcomes: retry of " + r.id() + " has no nextAttemptAt");
            }
            retries.add(new Retry(r.id(), r.errorCode(), r.reason(), micros(r.nextAttemptAt())));
          }
          case DeadLetter d -> deadLetters.add(d);
          case Defer d -> {
            if (d.until() == null || d.errorCode() == null) {
              throw new IllegalArgumentException(
                  "outcomes: deferral of " + d.id() + " needs an until time and an error code");
            }
            deferrals.add(
                new Defer(d.id(), d.errorCode(), d.reason(), micros(d.until()), d.destination()));
          }
          case Release r -> deferrals.add(new Defer(r.id(), null, null, now));
        }
      }
      return new Outcomes(List.copyOf(outcomes), published, retries, deadLetters, deferrals);
    }

    CompletionReport record(
        SqlSession s,
        OutboxSql dialect,
        String owner,
        Instant now,
        boolean retain,
        Ordering ordering,
        int parkingChunkSize) {
      Set<UUID> applied = new HashSet<>();
      if (!published.isEmpty()) {
        applied.addAll(dialect.published(s, owner, published, now, retain));
      }
      if (!retries.isEmpty()) {
        applied.addAll(dialect.retried(s, owner, retries, now));
      }
      Map<UUID, Integer> parked = Map.of();
      if (!deadLetters.isEmpty() && ordering == Ordering.AGGREGATE) {
        parked = dialect.park(s, owner, deadLetters.stream().map(DeadLetter::id).toList(), now);
      }
      List<SupersededDeadLetter> superseded = List.of();
      if (!deadLetters.isEmpty()) {
        OutboxSql.Moved moved = dialect.deadLettered(s, owner, deadLetters, now);
        applied.addAll(moved.ids());
        superseded = moved.superseded();
      }
      if (!deferrals.isEmpty()) {
        applied.addAll(dialect.deferred(s, owner, deferrals, now));
      }
      if (ordering == Ordering.AGGREGATE) {
        List<UUID> waiting = new ArrayList<>();
        retries.forEach(r -> waiting.add(r.id()));
        deferrals.stream().filter(d -> d.errorCode() != null).forEach(d -> waiting.add(d.id()));
        waiting.retainAll(applied);
        if (!waiting.isEmpty()) {
          dialect.holdBehind(s, waiting, parkingChunkSize);
        }
      }
      List<UUID> lost = new ArrayList<>();
      for (DeliveryOutcome outcome : all) {
        if (!applied.contains(outcome.id())) {
          lost.add(outcome.id());
        }
      }
      Map<UUID, String> holders = lost.isEmpty() ? Map.of() : dialect.holders(s, lost);
      List<Completion> completions = new ArrayList<>(all.size());
      for (DeliveryOutcome outcome : all) {
        if (applied.contains(outcome.id())) {
          completions.add(Completion.applied(outcome));
        } else if (holders.containsKey(outcome.id())) {
          completions.add(Completion.leaseLost(outcome, holders.get(outcome.id())));
        } else {
          completions.add(Completion.gone(outcome));
        }
      }
      return new CompletionReport(completions, superseded, parked);
    }
  }
}
