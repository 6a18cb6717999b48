package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.store.deadletter.AuditCursor;
import dev.lambdaoutbox.store.deadletter.AuditEntry;
import dev.lambdaoutbox.store.deadletter.AuditFilter;
import dev.lambdaoutbox.store.deadletter.AuditInfo;
import dev.lambdaoutbox.store.deadletter.AuditPage;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Every statement the stores run, for one SQL dialect. Each method runs in the caller's transaction
 * on {@code session}; none commits. Times are to the microsecond.
 */
public interface StoreDialect {
  /** The home of {@code dialect}'s statements over {@code tables}. */
  static StoreDialect of(SqlDialect dialect, OutboxTables tables) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresDialect(tables);
      case MYSQL -> new MysqlDialect(tables);
    };
  }

  SqlDialect dialect();

  OutboxTables tables();

  // ---- the poller's outbox

  /**
   * Claims the oldest due PENDING rows ({@code next_attempt_at <= now}, in {@code next_attempt_at,
   * id} order, along the due index), skipping rows another transaction holds locked: stamps them
   * with the lease ({@code locked_by}, {@code locked_until}, and {@code next_attempt_at} = the
   * lease end, so they stop being due until the lease runs out) and returns them in that order.
   *
   * <p>Where the session bounds a result ({@link SqlSession#maxResultBytes()}), fewer rows are
   * claimed when their sizes say they would not fit in one result; the first due row is always
   * claimed.
   */
  List<OutboxMessage> claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd);

  /**
   * The statement {@link #claim} runs first (it finds and locks the rows), with named parameters.
   */
  String claimSql();

  /**
   * The database's plan for {@link #claimSql()}, without running it: to check that it walks the due
   * index.
   */
  String explainClaim(SqlSession s, Instant now, int limit);

  /**
   * Deletes the rows, or with {@code retain} marks them SENT at {@code now}, whoever holds them;
   * returns how many.
   */
  int published(SqlSession s, List<UUID> ids, Instant now, boolean retain);

  /**
   * Counts a failed attempt on each row {@code owner} still holds and makes it due again; returns
   * how many.
   */
  int retried(SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now);

  /**
   * Moves each row {@code owner} still holds to the dead-letter table (a dead letter already there
   * under the same id, a replayed row that failed again, is replaced); returns how many.
   */
  int deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now);

  /**
   * Deletes up to {@code limit} rows kept as SENT that were sent before {@code cutoff}, oldest
   * first along the sent index.
   */
  int purgeSent(SqlSession s, Instant cutoff, int limit);

  /**
   * The age of the oldest due pending row (the earliest {@code created_at} among the first {@link
   * #BACKLOG_SAMPLE} due rows: a bounded stretch of the due index, exact whenever fewer rows are
   * due) and the exact number of dead letters.
   */
  Backlog backlog(SqlSession s, Instant now);

  /** Due rows, counted along the due index up to {@code limit}. */
  int countDue(SqlSession s, Instant now, int limit);

  /** Due rows {@link #backlog} inspects for the oldest creation time. */
  int BACKLOG_SAMPLE = 1000;

  // ---- the reprocessor's dead letters

  /**
   * A page of up to {@code limit} rows after {@code after} (null: from the start), oldest death
   * first, with payloads cut to {@code previewChars} characters, and where the next page starts.
   */
  DeadLetterPage listDeadLetters(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, int previewChars);

  /** Counts of the rows {@code filter} matches, by error code and event type. */
  DeadLetterSummary summarizeDeadLetters(SqlSession s, DeadLetterFilter filter);

  long countDeadLetters(SqlSession s);

  /**
   * The dead letters with these ids, by id; with {@code lock}, locked until the transaction ends.
   */
  List<DeadLetter> deadLettersByIds(SqlSession s, Collection<UUID> ids, boolean lock);

  /** Up to {@code limit} matching dead letters after {@code after}, oldest death first. */
  List<DeadLetter> deadLettersMatching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, boolean lock);

  /** Whether any dead letter after {@code after} matches {@code filter}. */
  boolean anyDeadLetterMatching(SqlSession s, DeadLetterFilter filter, DeadLetterCursor after);

  /**
   * Puts a dead letter back into the outbox as a fresh PENDING row with the same event id: retry
   * count 0, due {@code now}, no lease, no last error, replay count one higher, created {@code now}
   * (so the backlog age does not count the days it lay dead). The insert itself decides clashes, so
   * a concurrent writer or replay can never make a duplicate.
   *
   * @return null when the row went in; otherwise why it did not
   */
  SkipReason reinsert(SqlSession s, DeadLetter row, String destinationOverride, Instant now);

  /** Deletes these dead letters; returns how many went. */
  int deleteDeadLetters(SqlSession s, Collection<UUID> ids);

  /** One audit row per dead letter, each with a snapshot of the row. */
  void recordAudit(
      SqlSession s,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now);

  /** What operators did to one dead letter, oldest first. */
  List<AuditEntry> auditTrail(SqlSession s, UUID deadLetterId);

  /**
   * Up to {@code limit} audit entries {@code filter} matches, written before {@code after} (null:
   * from the newest), newest first, each snapshot's payload cut to {@code previewChars} characters.
   */
  List<AuditPage.Entry> auditEntries(
      SqlSession s, AuditFilter filter, AuditCursor after, int limit, int previewChars);

  /** Those of {@code ids} that are outbox rows. */
  Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids);

  /** Of {@code keys}, those an outbox row holds, with that row's id. */
  Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys);
}
