package dev.lambdaoutbox.store.internal.dialect.mysql;

/**
 * What a claim runs on MySQL and MariaDB, every statement whole. {@code {prefix}} stands for the
 * tables' prefix: replace it (with nothing, for the default tables) and bind the {@code :named}
 * parameters to run a statement in the mysql client; a statement that ends in {@code IN} takes an
 * id list, {@code (...)}, after it. The key walk's {@link #WALK_ENTRIES} takes its range's bounds,
 * {@link #WALK_AFTER} and {@link #WALK_UP_TO}, where {@code {after}} and {@code {upTo}} stand (or
 * nothing). {@link MysqlClaims} runs them; docs/PERFORMANCE.md tells why they are shaped so.
 *
 * <p>The bounds written here are {@code ResultBudget}'s: a payload over 262,144 bytes (the largest
 * any broker takes) is cut to its first 1,000 characters, a row is counted as its columns' bytes
 * plus 512, and where rows are bounded (the Data API) a row over 64,000 bytes is cut too and
 * headers over 16,384 bytes are read apart. {@code MysqlClaimSqlTest} keeps them equal.
 */
final class MysqlClaimSql {
  /**
   * The claim: walk the (status, next_attempt_at, id) index in order and lock the rows returned,
   * skipping locked ones. No UPDATE ... RETURNING: the rows are leased by id next ({@link #LEASE}).
   */
  static final String CLAIM =
      """
      SELECT c.id, c.aggregate_type, c.aggregate_id, c.event_type, c.payload, c.headers,
        c.destination, c.idempotency_key,
        DATE_FORMAT(c.occurred_at, '%Y-%m-%d %H:%i:%s.%f') AS occurred_at,
        DATE_FORMAT(c.created_at, '%Y-%m-%d %H:%i:%s.%f') AS created_at,
        c.retry_count, c.replay_count,
        DATE_FORMAT(c.first_failed_at, '%Y-%m-%d %H:%i:%s.%f') AS first_failed_at, c.rewind_of
      FROM {prefix}outbox_messages c
      WHERE c.status = 'PENDING' AND c.next_attempt_at <= :now
      ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE SKIP LOCKED
      """;

  /**
   * Sized to a result budget, the claim locks the due rows but reads only their sizes; the rows
   * that fit are then read by id ({@link #CLAIMED_ROWS}).
   */
  static final String CLAIM_SIZES =
      """
      SELECT id, octet_length(payload) + COALESCE(octet_length(headers), 0)
        + COALESCE(octet_length(destination), 0) + COALESCE(octet_length(idempotency_key), 0)
        + octet_length(aggregate_type) + octet_length(aggregate_id) + octet_length(event_type)
        + 512 AS bytes
      FROM {prefix}outbox_messages
      WHERE status = 'PENDING' AND next_attempt_at <= :now
      ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED
      """;

  /**
   * The rows that fit, by id, a payload too large for any broker cut; with how many rows were
   * locked ({@code due_rows}), so a claim cut by bytes is not taken for a drained backlog.
   */
  static final String CLAIMED_ROWS =
      """
      SELECT id, aggregate_type, aggregate_id, event_type,
        CASE WHEN octet_length(payload) > 262144 THEN left(payload, 1000) ELSE payload END
          AS payload,
        octet_length(payload) AS payload_bytes, headers, destination, idempotency_key,
        DATE_FORMAT(occurred_at, '%Y-%m-%d %H:%i:%s.%f') AS occurred_at,
        DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s.%f') AS created_at, retry_count, replay_count,
        DATE_FORMAT(first_failed_at, '%Y-%m-%d %H:%i:%s.%f') AS first_failed_at, rewind_of,
        :dueRows AS due_rows
      FROM {prefix}outbox_messages WHERE id IN
      """;

  /** {@link #CLAIMED_ROWS} where rows are bounded: a row too large for one cut too. */
  static final String CLAIMED_ROWS_BOUNDED =
      """
      SELECT id, aggregate_type, aggregate_id, event_type,
        CASE WHEN octet_length(payload) > 262144
          OR octet_length(payload) + COALESCE(octet_length(headers), 0)
            + COALESCE(octet_length(destination), 0) + COALESCE(octet_length(idempotency_key), 0)
            + octet_length(aggregate_type) + octet_length(aggregate_id) + octet_length(event_type)
            + 512 > 64000
          THEN left(payload, 1000) ELSE payload END AS payload,
        octet_length(payload) AS payload_bytes,
        CASE WHEN octet_length(headers) > 16384 THEN NULL ELSE headers END AS headers,
        octet_length(headers) AS headers_bytes, destination, idempotency_key,
        DATE_FORMAT(occurred_at, '%Y-%m-%d %H:%i:%s.%f') AS occurred_at,
        DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s.%f') AS created_at, retry_count, replay_count,
        DATE_FORMAT(first_failed_at, '%Y-%m-%d %H:%i:%s.%f') AS first_failed_at, rewind_of,
        :dueRows AS due_rows
      FROM {prefix}outbox_messages WHERE id IN
      """;

  /**
   * The ordered claim's heads, by primary key (the IN list follows, then {@link #HEADS_END}),
   * locked SKIP LOCKED and checked again as locked (a locking read sees the latest version): still
   * PENDING and due, and still the first PENDING row of its aggregate (one dive into the key index
   * (aggregate_type, aggregate_id, status, seq) that reads one entry). An earlier row that is
   * leased, backing off or deferred is PENDING, so it holds up the rows behind it.
   */
  static final String HEADS =
      """
      SELECT m.id, m.aggregate_type, m.aggregate_id, m.event_type, m.payload, m.headers,
        m.destination, m.idempotency_key,
        DATE_FORMAT(m.occurred_at, '%Y-%m-%d %H:%i:%s.%f') AS occurred_at,
        DATE_FORMAT(m.created_at, '%Y-%m-%d %H:%i:%s.%f') AS created_at,
        m.retry_count, m.replay_count,
        DATE_FORMAT(m.first_failed_at, '%Y-%m-%d %H:%i:%s.%f') AS first_failed_at, m.rewind_of
      FROM {prefix}outbox_messages m
      WHERE m.status = 'PENDING' AND m.next_attempt_at <= :now
        AND m.seq = (SELECT e.seq FROM {prefix}outbox_messages e
          WHERE e.aggregate_type = m.aggregate_type AND e.aggregate_id = m.aggregate_id
            AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1)
        AND m.id IN
      """;

  /** {@link #HEADS} sized to a result budget: their sizes only, as {@link #CLAIM_SIZES}. */
  static final String HEADS_SIZES =
      """
      SELECT m.id, octet_length(m.payload) + COALESCE(octet_length(m.headers), 0)
        + COALESCE(octet_length(m.destination), 0) + COALESCE(octet_length(m.idempotency_key), 0)
        + octet_length(m.aggregate_type) + octet_length(m.aggregate_id)
        + octet_length(m.event_type) + 512 AS bytes
      FROM {prefix}outbox_messages m
      WHERE m.status = 'PENDING' AND m.next_attempt_at <= :now
        AND m.seq = (SELECT e.seq FROM {prefix}outbox_messages e
          WHERE e.aggregate_type = m.aggregate_type AND e.aggregate_id = m.aggregate_id
            AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1)
        AND m.id IN
      """;

  /** What follows the heads' id list. */
  static final String HEADS_END = " ORDER BY m.next_attempt_at, m.id FOR UPDATE SKIP LOCKED";

  /** The lease of the locked rows, by id. */
  static final String LEASE =
      """
      UPDATE {prefix}outbox_messages
      SET next_attempt_at = :leaseEnd, locked_until = :leaseEnd, locked_by = :owner
      WHERE id IN
      """;

  /**
   * The ordered claim's key walk, first statement: the next :keys PENDING entries of the pending
   * key index (status, aggregate_type, aggregate_id, seq) in the range, in index order, covered by
   * the index. MySQL has no partial index: leading with status, its PENDING part holds the pending
   * rows alone, and every aggregate reached starts in it, its first entry its head.
   */
  static final String WALK_ENTRIES =
      """
      SELECT e.aggregate_type, e.aggregate_id, e.seq
      FROM {prefix}outbox_messages e FORCE INDEX ({prefix}outbox_messages_status_key_ix)
      WHERE e.status = 'PENDING'{after}{upTo}
      ORDER BY e.status, e.aggregate_type, e.aggregate_id, e.seq LIMIT :keys
      """;

  /** The walk's lower bound, exclusive. */
  static final String WALK_AFTER =
      " AND (e.aggregate_type > :afterType"
          + " OR (e.aggregate_type = :afterType AND e.aggregate_id > :afterId))";

  /** The walk's upper bound, inclusive. */
  static final String WALK_UP_TO =
      " AND (e.aggregate_type < :upToType"
          + " OR (e.aggregate_type = :upToType AND e.aggregate_id <= :upToId))";

  /**
   * The key walk, second statement: the heads by seq (the IN list follows), each ready when due (a
   * leased head is due only at its lease end) and its aggregate not parked.
   */
  static final String WALK_HEADS =
      """
      SELECT h.seq, h.id,
        CASE WHEN h.next_attempt_at <= :now AND NOT EXISTS (SELECT 1 FROM {prefix}outbox_parked_keys p
          WHERE p.aggregate_type = h.aggregate_type AND p.aggregate_id = h.aggregate_id)
        THEN 1 ELSE 0 END AS ready
      FROM {prefix}outbox_messages h FORCE INDEX ({prefix}outbox_messages_seq_uq)
      WHERE h.status = 'PENDING' AND h.seq IN
      """;

  /**
   * Holding back the rows behind a head that now backs off or waits for its destination: due no
   * earlier than their head, so they do not crowd the front of the ordered claim's window. Locked
   * SKIP LOCKED (a completion never waits for a lock here), the head by primary key first
   * (STRAIGHT_JOIN), the rows behind it along the key index, at most :perHead of them in seq order;
   * then moved by primary key ({@link #MOVE_BEHIND}).
   */
  static final String HOLD_BEHIND =
      """
      SELECT STRAIGHT_JOIN m.id, DATE_FORMAT(h.next_attempt_at, '%Y-%m-%d %H:%i:%s.%f') AS due
      FROM {prefix}outbox_messages h
      JOIN {prefix}outbox_messages m FORCE INDEX ({prefix}outbox_messages_key_ix)
        ON m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id
      WHERE h.status = 'PENDING' AND m.status = 'PENDING' AND m.seq > h.seq
        AND m.next_attempt_at < h.next_attempt_at AND h.id = :id
      ORDER BY m.seq LIMIT :perHead FOR UPDATE SKIP LOCKED
      """;

  /**
   * Holding back, after a short ordered claim, the rows of its window (the :scan oldest due rows,
   * read along the due index without locking, of aggregates not parked) that are due before their
   * own aggregate's head while that head waits and is not under a live lease.
   */
  static final String HOLD_BEHIND_WAITING =
      """
      SELECT STRAIGHT_JOIN m.id, DATE_FORMAT(h.next_attempt_at, '%Y-%m-%d %H:%i:%s.%f') AS due
      FROM (
        SELECT w.id, w.aggregate_type, w.aggregate_id, w.seq, w.next_attempt_at FROM (
          SELECT id, aggregate_type, aggregate_id, seq, next_attempt_at FROM {prefix}outbox_messages
          WHERE status = 'PENDING' AND next_attempt_at <= :now
          ORDER BY next_attempt_at, id LIMIT :scan) w
        WHERE NOT EXISTS (SELECT 1 FROM {prefix}outbox_parked_keys k
          WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)) c
      JOIN {prefix}outbox_messages h ON h.aggregate_type = c.aggregate_type
        AND h.aggregate_id = c.aggregate_id AND h.status = 'PENDING'
        AND h.seq = (SELECT e.seq FROM {prefix}outbox_messages e
          WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id
            AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1)
      JOIN {prefix}outbox_messages m ON m.id = c.id
      WHERE h.seq < c.seq AND h.next_attempt_at > c.next_attempt_at
        AND (h.locked_until IS NULL OR h.locked_until <= :now) AND m.status = 'PENDING'
      FOR UPDATE SKIP LOCKED
      """;

  /** The held-back rows moved to their head's due time, by primary key. */
  static final String MOVE_BEHIND =
      "UPDATE {prefix}outbox_messages SET next_attempt_at = :due WHERE id IN";

  /**
   * The ordered claim's shared cursor (one row per cursor, migration V9): where the walk of the
   * aggregates stands, read by its primary key.
   */
  static final String CURSOR_READ =
      """
      SELECT aggregate_type, aggregate_id FROM {prefix}outbox_claim_cursors WHERE cursor_name = :name
      """;

  /** {@link #CURSOR_READ}, the row locked until the transaction ends (a missing row locks none). */
  static final String CURSOR_LOCK =
      """
      SELECT aggregate_type, aggregate_id FROM {prefix}outbox_claim_cursors WHERE cursor_name = :name
      FOR UPDATE
      """;

  /** The cursor moved to the key the walk reached (both columns null: before the first key). */
  static final String CURSOR_MOVE =
      """
      UPDATE {prefix}outbox_claim_cursors
      SET aggregate_type = :type, aggregate_id = :id, moved_at = :now
      WHERE cursor_name = :name
      """;

  /**
   * A cursor's row deleted by hand, inserted again. A row another claim inserted first fails it
   * with a duplicate key, which leaves the transaction usable; that row is kept.
   */
  static final String CURSOR_INSERT =
      """
      INSERT INTO {prefix}outbox_claim_cursors (cursor_name, aggregate_type, aggregate_id, moved_at)
      VALUES (:name, :type, :id, :now)
      """;

  private MysqlClaimSql() {}
}
