package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.internal.dialect.WaitingRowSql;
import dev.lambdaoutbox.store.internal.rows.Results;
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
import dev.lambdaoutbox.store.model.waiting.WaitingForTime;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * The statements operators' tools run, the same in PostgreSQL and MySQL apart from how a time is
 * written: parked keys ({@link PortableParking}), waiting rows ({@link PortableWaiting}, {@link
 * PortableDueTimes}), the reprocessor's reads ({@link PortableDeadLetters}), the audit rows ({@link
 * PortableAudit}), failure groups and rewinds. {@link PortableSql} adds the poller's.
 */
public abstract class PortableOperatorSql implements DeadLetterSql, WaitingRowSql {
  private final SqlTemplate sql;
  private final PortableParking parking;
  private final PortableWaiting waiting;
  private final PortableDueTimes dueTimes;
  private final PortableDeadLetters deadLetters;
  private final PortableAudit audit;
  private final PortableRewind rewind;
  private final PortableFailureGroups failureGroups;

  protected PortableOperatorSql(
      SqlTemplate sql,
      PortableDeadLetters.ByIds byIds,
      String detailsPreview,
      UnaryOperator<String> snapshotPayload) {
    this.sql = sql;
    this.parking = new PortableParking(sql);
    this.waiting = new PortableWaiting(sql);
    this.dueTimes = new PortableDueTimes(sql);
    this.deadLetters = new PortableDeadLetters(sql, byIds);
    this.audit = new PortableAudit(sql, detailsPreview, snapshotPayload);
    this.rewind = new PortableRewind(sql);
    this.failureGroups = new PortableFailureGroups(sql);
  }

  /** A rewind's statements ({@link PortableRewind}), the same in every dialect. */
  public final PortableRewind rewind() {
    return rewind;
  }

  @Override
  public final PortableFailureGroups failureGroups() {
    return failureGroups;
  }

  /** The reprocessor's reads, which the dialect's moves use too. */
  protected final PortableDeadLetters deadLetterReads() {
    return deadLetters;
  }

  /**
   * The audit rows, which the dialect's moves write when they supersede a dead letter, and a rewind
   * when it takes a step.
   */
  public final PortableAudit audit() {
    return audit;
  }

  /** The database's plan for {@code statement} with {@code params}, without running it. */
  protected final String explain(SqlSession s, String statement, Params params) {
    return Results.planLines(s.query(sql.syntax().explain() + statement, params));
  }

  // ---- parked keys

  @Override
  public final ParkedKey parkedKey(SqlSession s, UUID deadLetterId, boolean lock) {
    return parking.parkedKey(s, deadLetterId, lock);
  }

  @Override
  public final List<ParkedKey> parkedKeys(SqlSession s, int limit) {
    return parking.parkedKeys(s, limit);
  }

  @Override
  public final long countParkedKeys(SqlSession s) {
    return parking.countParkedKeys(s);
  }

  @Override
  public final void release(SqlSession s, ParkedKey key, boolean restoreHead) {
    parking.release(s, key, restoreHead);
  }

  // ---- the rows waiting for their time

  @Override
  public final long countWaitingForTime(SqlSession s, Instant now, int cap) {
    return dueTimes.count(s, now, cap);
  }

  @Override
  public final List<WaitingForTime.Due> nextDue(SqlSession s, Instant now, int limit) {
    return dueTimes.next(s, now, limit);
  }

  /** The plans of the rows waiting for their time ({@code ExplainSql}). */
  public final String explainWaitingForTime(SqlSession s, Instant now) {
    return explain(s, dueTimes.countSql(), PortableDueTimes.countParams(now, 10_001))
        + explain(s, dueTimes.nextSql(), PortableDueTimes.nextParams(now, 10));
  }

  // ---- the rows waiting for a destination that is down

  @Override
  public final WaitingCount countWaiting(
      SqlSession s, String key, DeadLetterFilter filter, int cap) {
    return waiting.count(s, key, filter, cap);
  }

  @Override
  public final List<WaitingRow> waitingRows(
      SqlSession s, String key, Instant now, int limit, boolean lock) {
    return waiting.select(s, key, now, limit, lock);
  }

  @Override
  public final int retarget(SqlSession s, Collection<UUID> ids, String destination, Instant now) {
    return waiting.retarget(s, ids, destination, now);
  }

  @Override
  public final void lease(SqlSession s, Collection<UUID> ids, String owner, Instant until) {
    waiting.lease(s, ids, owner, until);
  }

  @Override
  public final void recordRetargetAudit(
      SqlSession s, List<WaitingRow> rows, String from, String to, AuditInfo info, Instant now) {
    audit.recordRetarget(s, rows, from, to, info, now);
  }

  // ---- the reprocessor's dead letters

  @Override
  public final DeadLetterPage listDeadLetters(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, int previewChars) {
    return deadLetters.list(s, filter, after, limit, previewChars);
  }

  @Override
  public final DeadLetterSummary summarizeDeadLetters(SqlSession s, DeadLetterFilter filter) {
    return deadLetters.summarize(s, filter);
  }

  @Override
  public final long countDeadLetters(SqlSession s) {
    return deadLetters.count(s);
  }

  @Override
  public final List<DeadLetter> deadLettersMatching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, boolean lock) {
    return deadLetters.matching(s, filter, after, limit, lock);
  }

  @Override
  public final List<DeadLetter> deadLettersByIds(SqlSession s, Collection<UUID> ids, boolean lock) {
    return deadLetters.byIds(s, ids, lock);
  }

  @Override
  public final boolean anyDeadLetterMatching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after) {
    return deadLetters.any(s, filter, after);
  }

  @Override
  public final void recordAudit(
      SqlSession s,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo info,
      Instant now) {
    audit.record(s, action, rows, destinationOverride, info, now);
  }

  @Override
  public final void recordRedriveAudit(
      SqlSession s,
      String action,
      List<UUID> ids,
      String group,
      IntFunction<Instant> due,
      AuditInfo info,
      Instant now) {
    audit.recordRedrive(s, action, ids, group, due, info, now);
  }

  @Override
  public final List<AuditEntry> auditTrail(SqlSession s, UUID deadLetterId) {
    return audit.trail(s, deadLetterId);
  }

  @Override
  public final List<AuditPage.Entry> auditEntries(
      SqlSession s, AuditFilter filter, AuditCursor after, int limit, int previewChars) {
    return audit.entries(s, filter, after, limit, previewChars);
  }
}
