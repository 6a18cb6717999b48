package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.ClockSql;
import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.internal.dialect.DestinationHealthSql;
import dev.lambdaoutbox.store.internal.dialect.ExplainSql;
import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.PurgeSql;
import dev.lambdaoutbox.store.internal.dialect.WaitingRowSql;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.internal.rows.Results;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.UnreadableRow;
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
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * A dialect's home of every statement, each client's interface implemented over the statement files
 * of one concern each. What PostgreSQL and MySQL run alike, apart from how a time is written
 * ({@link Syntax}), is in this package: the backlog ({@link PortableBacklog}), destination health
 * ({@link PortableHealth}), released parked keys ({@link PortableParking}), the poller leases
 * ({@link PortableLeases}), the ordered claim's shared cursor ({@link PortableClaimCursors}, but
 * for the insert of a missing row, which the dialect writes: {@link #insertClaimCursor}), waiting
 * rows ({@link PortableWaiting}), the reprocessor's reads ({@link PortableDeadLetters}) and the
 * audit rows ({@link PortableAudit}). The two dialect homes extend this and hold everything else.
 */
public abstract class PortableSql
    implements OutboxSql,
        DestinationHealthSql,
        PurgeSql,
        DeadLetterSql,
        WaitingRowSql,
        ExplainSql,
        ClockSql {
  private final SqlTemplate sql;
  private final PortableBacklog backlog;
  private final PortableHealth health;
  private final PortableParking parking;
  private final PortableWaiting waiting;
  private final PortableDueTimes dueTimes;
  private final PortableDeadLetters deadLetters;
  private final PortableAudit audit;
  private final PortablePayloads payloads;
  private final PortableLeases leases;
  private final PortableClaimCursors cursors;
  private final PortableClock clock;
  private final PortableRewind rewind;
  private final PortableFailureGroups failureGroups;

  protected PortableSql(
      SqlTemplate sql,
      PortableDeadLetters.ByIds byIds,
      String detailsPreview,
      UnaryOperator<String> snapshotPayload) {
    this.sql = sql;
    this.backlog = new PortableBacklog(sql);
    this.health = new PortableHealth(sql);
    this.parking = new PortableParking(sql);
    this.waiting = new PortableWaiting(sql);
    this.dueTimes = new PortableDueTimes(sql);
    this.deadLetters = new PortableDeadLetters(sql, byIds);
    this.audit = new PortableAudit(sql, detailsPreview, snapshotPayload);
    this.payloads = new PortablePayloads(sql);
    this.leases = new PortableLeases(sql);
    this.cursors = new PortableClaimCursors(sql);
    this.clock = new PortableClock(sql);
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

  /** The destination health statements, whose insert the dialect completes. */
  protected final PortableHealth health() {
    return health;
  }

  @Override
  public final Instant now(SqlSession s) {
    return clock.now(s);
  }

  // ---- the claim's unreadable rows

  /**
   * A claim's result from its rows, read one by one: the unreadable ones, which this transaction
   * holds, are moved to the dead letters at once; with {@code ordered}, each parks its aggregate
   * first, as any dead-lettered head does.
   */
  protected final Claim claimed(
      SqlSession s, String owner, Instant now, MessageRows.Read read, boolean ordered) {
    if (read.unreadable().isEmpty()) {
      return new Claim(read.messages(), List.of(), List.of(), Map.of(), read.stoppedAtBudget());
    }
    Map<UUID, Integer> parked =
        ordered ? parkUnreadable(s, owner, read.unreadable(), now) : Map.of();
    Moved moved = moveUnreadable(s, owner, read.unreadable(), now);
    return new Claim(
        read.messages(), read.unreadable(), moved.superseded(), parked, read.stoppedAtBudget());
  }

  /**
   * Moves claimed rows that could not be read (this transaction holds them) to the dead letters.
   */
  protected abstract Moved moveUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now);

  /**
   * Parks the aggregates of claimed heads that could not be read, before they are moved; returns
   * per dead letter id how many events behind it parked.
   */
  protected abstract Map<UUID, Integer> parkUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now);

  /** The database's plan for {@code statement} with {@code params}, without running it. */
  protected final String explain(SqlSession s, String statement, Params params) {
    return Results.planLines(s.query(sql.syntax().explain() + statement, params));
  }

  /**
   * The parameters of a purge's statement: expired before {@code cutoff}, {@code limit} at most.
   */
  protected static Params purgeParams(Instant cutoff, int limit) {
    return Params.of().timestamp("cutoff", cutoff).integer("limit", limit);
  }

  // ---- the poller leases

  @Override
  public final boolean holdLease(
      SqlSession s, String name, String owner, Instant now, Instant until) {
    return leases.hold(s, name, owner, now, until);
  }

  @Override
  public final boolean releaseLease(SqlSession s, String name, String owner, Instant now) {
    return leases.release(s, name, owner, now);
  }

  // ---- the ordered claim's shared cursor

  @Override
  public final KeyHead.Key claimCursor(SqlSession s, String name) {
    return cursors.read(s, name);
  }

  @Override
  public final KeyHead.Key lockClaimCursor(SqlSession s, String name) {
    return cursors.lock(s, name);
  }

  @Override
  public final void moveClaimCursor(SqlSession s, String name, KeyHead.Key key, Instant now) {
    if (!cursors.move(s, name, key, now)) {
      insertClaimCursor(s, cursors.insert(), PortableClaimCursors.params(name, key, now));
    }
  }

  /**
   * Runs {@code insert}, the plain INSERT of a cursor's row, with {@code params}, keeping the row
   * as it is where another transaction inserted it first (without failing this one).
   */
  protected abstract void insertClaimCursor(SqlSession s, String insert, Params params);

  // ---- the backlog

  @Override
  public final Backlog backlog(SqlSession s, Instant now, Instant staleBefore) {
    return backlog.backlog(s, now, staleBefore);
  }

  @Override
  public final String backlogSql() {
    return backlog.backlogSql();
  }

  @Override
  public final String explainBacklog(SqlSession s, Instant now) {
    return explain(s, backlogSql(), Params.of().timestamp("staleBefore", now));
  }

  @Override
  public final int countDue(SqlSession s, Instant now, int limit, boolean ordered) {
    return backlog.countDue(s, now, limit, ordered);
  }

  // ---- whole payloads

  @Override
  public final FullPayload fullPayload(SqlSession s, UUID id, long maxBytes) {
    return payloads.read(s, id, maxBytes);
  }

  /** Claimed rows with what a bounded claim cut from them read whole ({@link PortablePayloads}). */
  protected final List<Row> whole(SqlSession s, List<Row> claimed) {
    return payloads.complete(s, claimed);
  }

  // ---- destination health

  @Override
  public final List<DestinationHealth> destinationHealth(SqlSession s) {
    return health.all(s);
  }

  @Override
  public final DestinationHealth destinationHealth(SqlSession s, String destination, boolean lock) {
    return health.one(s, destination, lock);
  }

  @Override
  public final boolean claimProbe(SqlSession s, String destination, Instant now, Instant next) {
    return health.claimProbe(s, destination, now, next);
  }

  @Override
  public final boolean recordFailedProbe(
      SqlSession s,
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now) {
    return health.recordFailedProbe(s, destination, state, errorCode, reason, now);
  }

  @Override
  public final boolean deleteDestinationHealth(SqlSession s, String destination) {
    return health.delete(s, destination);
  }

  @Override
  public final int deleteStaleDestinationHealth(SqlSession s, Instant staleBefore) {
    return health.deleteStale(s, staleBefore);
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

  @Override
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
