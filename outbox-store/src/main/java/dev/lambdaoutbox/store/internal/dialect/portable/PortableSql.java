package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.ClockSql;
import dev.lambdaoutbox.store.internal.dialect.DestinationHealthSql;
import dev.lambdaoutbox.store.internal.dialect.ExplainSql;
import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.PurgeSql;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A dialect's home of every statement, each client's interface implemented over the statement files
 * of one concern each. What PostgreSQL and MySQL run alike, apart from how a time is written
 * ({@link Syntax}), is in this package: the backlog ({@link PortableBacklog}), destination health
 * ({@link PortableHealth}), released parked keys ({@link PortableParking}), the poller leases
 * ({@link PortableLeases}), the ordered claim's shared cursor ({@link PortableClaimCursors}, its
 * statements the dialect's), waiting rows, the reprocessor's reads and the audit rows ({@link
 * PortableOperatorSql}). The two dialect homes extend this and hold everything else.
 */
public abstract class PortableSql extends PortableOperatorSql
    implements OutboxSql, DestinationHealthSql, PurgeSql, ExplainSql, ClockSql {
  private final PortableBacklog backlog;
  private final PortableHealth health;
  private final PortablePayloads payloads;
  private final PortableLeases leases;
  private final PortableClaimCursors cursors;
  private final PortableClock clock;

  protected PortableSql(
      SqlTemplate sql,
      PortableDeadLetters.ByIds byIds,
      String detailsPreview,
      UnaryOperator<String> snapshotPayload,
      PortableClaimCursors cursors) {
    super(sql, byIds, detailsPreview, snapshotPayload);
    this.backlog = new PortableBacklog(sql);
    this.health = new PortableHealth(sql);
    this.payloads = new PortablePayloads(sql);
    this.leases = new PortableLeases(sql);
    this.cursors = cursors;
    this.clock = new PortableClock(sql);
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
    cursors.move(s, name, key, now);
  }

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
}
