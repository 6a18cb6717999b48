package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.FailureGroup;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * The failure groups' statements as the dead-letter store runs them: the walk from one group to the
 * next, the backfill of fingerprints, and a re-drive's rows in the outbox (held, spaced out again,
 * counted).
 */
public interface FailureGroupSql {
  /** The due time of a re-drive's row an operator stopped: never, until it is resumed. */
  Instant HELD_UNTIL = Instant.parse("8000-01-01T00:00:00Z");

  /** Up to {@code limit} groups after {@code after} ("" for the first), in fingerprint order. */
  List<FailureGroup> groups(SqlSession s, String after, int limit, int samples);

  /** One group: its count (up to the cap plus one), first and last death, reason and samples. */
  FailureGroup group(SqlSession s, String fingerprint, int samples);

  /** The dead letters without a fingerprint, counted up to the cap plus one. */
  long countUnfingerprinted(SqlSession s);

  /**
   * Gives up to {@code limit} dead letters without one their fingerprint, computed as the poller's
   * move computes it; returns how many it stamped.
   */
  int backfill(SqlSession s, int limit);

  /**
   * Up to {@code limit} of the group's oldest dead letters after {@code after} (null: from the
   * first), locked; rows another transaction holds are skipped.
   */
  List<DeadLetterCursor> oldest(
      SqlSession s, String fingerprint, DeadLetterCursor after, int limit);

  /**
   * The latest due time of the group's re-driven rows waiting for their paced time (not held, not
   * leased, not retrying); null for none.
   */
  Instant lastDue(SqlSession s, String fingerprint, Instant now);

  /** Holds up to {@code limit} of the group's re-driven rows not yet published, nor leased. */
  List<UUID> hold(SqlSession s, String fingerprint, Instant now, int limit);

  /** Up to {@code limit} of the group's held rows, locked, by id. */
  List<UUID> held(SqlSession s, String fingerprint, int limit);

  /** Gives the i-th of {@code ids} the due time {@code due(i)}. */
  void setDue(SqlSession s, List<UUID> ids, IntFunction<Instant> due);

  /** The group's re-driven rows waiting in the outbox: scheduled and held, each up to the cap. */
  RedriveRows redriveRows(SqlSession s, String fingerprint);

  /** The outbox row of this id (status, retries, last error), or null. */
  Row outboxRow(SqlSession s, UUID id);

  /** The dead letter of this id (error, death), or null. */
  Row deadRow(SqlSession s, UUID id);
}
