package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The reprocessor's statements over the dead letters ({@link
 * dev.lambdaoutbox.store.deadletter.SqlDeadLetterStore}): listing, replaying and discarding them,
 * their audit rows, and the parked keys a replay or discard releases. Each method runs in the
 * caller's transaction on {@code s}; none commits.
 */
public interface DeadLetterSql {
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
   * count 0, due {@code due} (now, or a re-drive's paced time), in the re-drive's group {@code
   * redriveGroup} (null: none), no lease, no last error, replay count one higher, created {@code
   * now} (so the backlog age does not count the days it lay dead). The insert itself decides
   * clashes, so a concurrent writer or replay can never make a duplicate.
   *
   * @return null when the row went in; otherwise why it did not
   */
  SkipReason reinsert(
      SqlSession s,
      DeadLetter row,
      String destinationOverride,
      Instant now,
      Instant due,
      String redriveGroup);

  /** The failure groups' statements, the same in every dialect. */
  FailureGroupSql failureGroups();

  /** Deletes these dead letters; returns how many went. */
  int deleteDeadLetters(SqlSession s, Collection<UUID> ids);

  /** Those of {@code ids} that are outbox rows. */
  Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids);

  /** Of {@code keys}, those an outbox row holds, with that row's id. */
  Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys);

  /** One audit row per dead letter, each with a snapshot of the row. */
  void recordAudit(
      SqlSession s,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now);

  /**
   * One audit row per outbox row a re-drive held or resumed, with the group and the row's due time
   * ({@code due(i)} for the i-th id; null when held).
   */
  void recordRedriveAudit(
      SqlSession s,
      String action,
      List<UUID> ids,
      String group,
      java.util.function.IntFunction<Instant> due,
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

  /** The key parked behind dead letter {@code deadLetterId}, or null; with {@code lock}, locked. */
  ParkedKey parkedKey(SqlSession s, UUID deadLetterId, boolean lock);

  /** Up to {@code limit} parked keys, longest parked first, with their waiting events. */
  List<ParkedKey> parkedKeys(SqlSession s, int limit);

  long countParkedKeys(SqlSession s);

  /**
   * Releases a parked key, two rows whatever its size: with {@code restoreHead}, the replayed head
   * (back in the outbox under the dead letter's id) takes its old {@code seq} again, ahead of the
   * events behind it; the parked-keys row goes.
   */
  void release(SqlSession s, ParkedKey key, boolean restoreHead);
}
