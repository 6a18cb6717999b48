package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.dialect.StoreDialect;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.writer.OutboxTables;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link OutboxStore}: arguments checked here, each method one transaction of the executor, the
 * SQL in the executor's dialect home ({@link StoreDialect}).
 */
final class SqlOutboxStore implements OutboxStore {
  private final SqlExecutor executor;
  private final StoreDialect dialect;
  private final OutboxTables tables;
  private final boolean retain;

  SqlOutboxStore(Builder b) {
    this.executor = b.executor;
    this.tables = b.tables;
    this.dialect = StoreDialect.of(executor.dialect(), tables);
    this.retain = b.retention != null;
  }

  @Override
  public List<OutboxMessage> claim(String owner, int limit, Instant now, Duration lease) {
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
    return executor.inTransaction(
        "claim up to " + limit + " rows from " + tables.messages() + " for " + owner,
        s -> dialect.claim(s, owner, limit, at, leaseEnd));
  }

  @Override
  public CompletionCounts complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    requireOwner(owner);
    Objects.requireNonNull(outcomes, "outcomes");
    if (outcomes.isEmpty()) {
      return new CompletionCounts(0, 0, 0, 0);
    }
    Outcomes byKind = Outcomes.of(outcomes);
    Instant at = micros(now);
    return executor.inTransaction(
        "record " + outcomes.size() + " outcomes in " + tables.messages() + " for " + owner,
        s -> byKind.record(s, dialect, owner, at, retain));
  }

  @Override
  public int purgeSent(Instant cutoff, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit: must be positive, was " + limit);
    }
    Instant at = micros(cutoff);
    return executor.inTransaction(
        "purge SENT rows sent before " + at + " from " + tables.messages(),
        s -> dialect.purgeSent(s, at, limit));
  }

  @Override
  public Backlog backlog(Instant now) {
    Instant at = micros(now);
    return executor.inTransaction(
        "read the backlog of " + tables.messages(), s -> dialect.backlog(s, at));
  }

  @Override
  public int countDue(Instant now, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit: must be positive, was " + limit);
    }
    Instant at = micros(now);
    return executor.inTransaction(
        "count the due rows of " + tables.messages(), s -> dialect.countDue(s, at, limit));
  }

  private static void requireOwner(String owner) {
    if (owner == null || owner.isBlank() || owner.length() > MAX_OWNER_LENGTH) {
      throw new IllegalArgumentException(
          "owner: must be 1 to " + MAX_OWNER_LENGTH + " characters, was '" + owner + "'");
    }
  }

  private static Instant micros(Instant instant) {
    return Objects.requireNonNull(instant, "now").truncatedTo(ChronoUnit.MICROS);
  }

  /**
   * A batch of outcomes by kind, recorded in one transaction: published rows first (they need no
   * lease), then retries, then dead letters. An outcome the database did not apply (the row was
   * reclaimed by another owner, or is already gone) counts as {@code skippedLeaseLost}.
   */
  private record Outcomes(
      int total, List<UUID> published, List<Retry> retries, List<DeadLetter> deadLetters) {

    static Outcomes of(List<DeliveryOutcome> outcomes) {
      List<UUID> published = new ArrayList<>();
      List<Retry> retries = new ArrayList<>();
      List<DeadLetter> deadLetters = new ArrayList<>();
      Set<UUID> seen = new HashSet<>();
      for (DeliveryOutcome outcome : outcomes) {
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
        }
      }
      return new Outcomes(outcomes.size(), published, retries, deadLetters);
    }

    CompletionCounts record(
        SqlSession s, StoreDialect dialect, String owner, Instant now, boolean retain) {
      int sent = published.isEmpty() ? 0 : dialect.published(s, published, now, retain);
      int retried = retries.isEmpty() ? 0 : dialect.retried(s, owner, retries, now);
      int dead = deadLetters.isEmpty() ? 0 : dialect.deadLettered(s, owner, deadLetters, now);
      return new CompletionCounts(sent, retried, dead, total - sent - retried - dead);
    }
  }
}
