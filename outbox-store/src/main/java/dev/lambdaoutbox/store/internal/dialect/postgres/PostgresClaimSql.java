package dev.lambdaoutbox.store.internal.dialect.postgres;

/**
 * What a claim runs on PostgreSQL, every statement whole. {@code {prefix}} stands for the tables'
 * prefix: replace it (with nothing, for the default tables) and bind the {@code :named} parameters
 * to run a statement in psql; times are bound as UTC text. {@link PostgresClaims} runs them.
 *
 * <p>The bounds written here are {@code ResultBudget}'s: a payload over 262,144 bytes (the largest
 * any broker takes) is cut to its first 1,000 characters, a row is counted as its columns' bytes
 * plus 512, and where rows are bounded a row over 64,000 bytes is cut too and headers over 16,384
 * bytes are read apart. {@code PostgresClaimSqlTest} keeps them equal.
 */
final class PostgresClaimSql {
  /**
   * The claim: the due rows along the partial due index (WHERE status = 'PENDING'), locked as
   * taken, leased by their physical row ids (ctid = ANY(ARRAY(...)): a TID scan, a plan shape no
   * generic plan can change) and returned in their due order.
   */
  static final String CLAIM =
      """
      WITH due AS (SELECT ctid, id, next_attempt_at
        FROM {prefix}outbox_messages
        WHERE status = 'PENDING' AND next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
        ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED),
      claimed AS (
        UPDATE {prefix}outbox_messages m
        SET next_attempt_at = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'), locked_until = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'),
          locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM due))
        RETURNING m.id, m.aggregate_type, m.aggregate_id, m.event_type, m.payload, m.headers,
          m.destination, m.idempotency_key,
          CAST(m.occurred_at AT TIME ZONE 'UTC' AS text) AS occurred_at,
          CAST(m.created_at AT TIME ZONE 'UTC' AS text) AS created_at, m.retry_count, m.replay_count,
          CAST(m.first_failed_at AT TIME ZONE 'UTC' AS text) AS first_failed_at, m.rewind_of)
      SELECT claimed.* FROM claimed JOIN due USING (id) ORDER BY due.next_attempt_at, due.id
      """;

  /**
   * {@link #CLAIM} sized to a result budget: of the rows locked, the fit CTE keeps the first whose
   * running size stays within :maxBytes (always the first); the rest stay due. Each row says how
   * many were locked ({@code due_rows}), so a claim cut by bytes is not taken for a drained
   * backlog. A payload too large for any broker comes back cut.
   */
  static final String CLAIM_SIZED =
      """
      WITH due AS (SELECT ctid, id, next_attempt_at,
            octet_length(payload) + COALESCE(octet_length(headers), 0)
            + COALESCE(octet_length(destination), 0) + COALESCE(octet_length(idempotency_key), 0)
            + octet_length(aggregate_type) + octet_length(aggregate_id) + octet_length(event_type)
            + 512 AS bytes
        FROM {prefix}outbox_messages
        WHERE status = 'PENDING' AND next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
        ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED),
      fit AS (
        SELECT ctid, id, next_attempt_at FROM (
          SELECT ctid, id, next_attempt_at, sum(bytes) OVER w AS running, row_number() OVER w AS n
          FROM due WINDOW w AS (ORDER BY next_attempt_at, id)) sized
        WHERE running <= :maxBytes OR n = 1),
      claimed AS (
        UPDATE {prefix}outbox_messages m
        SET next_attempt_at = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'), locked_until = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'),
          locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM fit))
        RETURNING m.id, m.aggregate_type, m.aggregate_id, m.event_type,
          CASE WHEN octet_length(m.payload) > 262144 THEN left(m.payload, 1000) ELSE m.payload END
            AS payload,
          octet_length(m.payload) AS payload_bytes, m.headers, m.destination, m.idempotency_key,
          CAST(m.occurred_at AT TIME ZONE 'UTC' AS text) AS occurred_at,
          CAST(m.created_at AT TIME ZONE 'UTC' AS text) AS created_at, m.retry_count, m.replay_count,
          CAST(m.first_failed_at AT TIME ZONE 'UTC' AS text) AS first_failed_at, m.rewind_of)
      SELECT claimed.*, (SELECT count(*) FROM due) AS due_rows
      FROM claimed JOIN fit USING (id) ORDER BY fit.next_attempt_at, fit.id
      """;

  /**
   * {@link #CLAIM_SIZED} where rows are bounded (the Data API): a row too large for one comes back
   * cut too.
   */
  static final String CLAIM_ROW_SIZED =
      """
      WITH due AS (SELECT ctid, id, next_attempt_at,
            octet_length(payload) + COALESCE(octet_length(headers), 0)
            + COALESCE(octet_length(destination), 0) + COALESCE(octet_length(idempotency_key), 0)
            + octet_length(aggregate_type) + octet_length(aggregate_id) + octet_length(event_type)
            + 512 AS bytes
        FROM {prefix}outbox_messages
        WHERE status = 'PENDING' AND next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
        ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED),
      fit AS (
        SELECT ctid, id, next_attempt_at FROM (
          SELECT ctid, id, next_attempt_at, sum(bytes) OVER w AS running, row_number() OVER w AS n
          FROM due WINDOW w AS (ORDER BY next_attempt_at, id)) sized
        WHERE running <= :maxBytes OR n = 1),
      claimed AS (
        UPDATE {prefix}outbox_messages m
        SET next_attempt_at = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'), locked_until = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'),
          locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM fit))
        RETURNING m.id, m.aggregate_type, m.aggregate_id, m.event_type,
          CASE WHEN octet_length(m.payload) > 262144
            OR octet_length(m.payload) + COALESCE(octet_length(m.headers), 0)
              + COALESCE(octet_length(m.destination), 0) + COALESCE(octet_length(m.idempotency_key), 0)
              + octet_length(m.aggregate_type) + octet_length(m.aggregate_id) + octet_length(m.event_type)
              + 512 > 64000
            THEN left(m.payload, 1000) ELSE m.payload END AS payload,
          octet_length(m.payload) AS payload_bytes,
          CASE WHEN octet_length(m.headers) > 16384 THEN NULL ELSE m.headers END AS headers,
          octet_length(m.headers) AS headers_bytes, m.destination, m.idempotency_key,
          CAST(m.occurred_at AT TIME ZONE 'UTC' AS text) AS occurred_at,
          CAST(m.created_at AT TIME ZONE 'UTC' AS text) AS created_at, m.retry_count, m.replay_count,
          CAST(m.first_failed_at AT TIME ZONE 'UTC' AS text) AS first_failed_at, m.rewind_of)
      SELECT claimed.*, (SELECT count(*) FROM due) AS due_rows
      FROM claimed JOIN fit USING (id) ORDER BY fit.next_attempt_at, fit.id
      """;

  /**
   * The ordered claim's heads, by id ({@code :ids}, a JSON array), locked SKIP LOCKED and checked
   * again as locked: still PENDING and due, and still the oldest PENDING row of their aggregate
   * (one probe of the key index each; OFFSET 0 keeps it a probe per row); then leased as {@link
   * #CLAIM} leases.
   */
  static final String HEADS_CLAIM =
      """
      WITH due AS (SELECT m.ctid, m.id, m.next_attempt_at
        FROM {prefix}outbox_messages m
        WHERE m.id = ANY(ARRAY(SELECT CAST(value AS uuid) FROM json_array_elements_text(CAST(:ids AS json))))
          AND m.status = 'PENDING' AND m.next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
          AND NOT EXISTS (SELECT 1 FROM {prefix}outbox_messages e
            WHERE e.aggregate_type = m.aggregate_type AND e.aggregate_id = m.aggregate_id
              AND e.status = 'PENDING' AND e.seq < m.seq OFFSET 0)
        ORDER BY m.next_attempt_at, m.id FOR UPDATE OF m SKIP LOCKED),
      claimed AS (
        UPDATE {prefix}outbox_messages m
        SET next_attempt_at = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'), locked_until = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'),
          locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM due))
        RETURNING m.id, m.aggregate_type, m.aggregate_id, m.event_type, m.payload, m.headers,
          m.destination, m.idempotency_key,
          CAST(m.occurred_at AT TIME ZONE 'UTC' AS text) AS occurred_at,
          CAST(m.created_at AT TIME ZONE 'UTC' AS text) AS created_at, m.retry_count, m.replay_count,
          CAST(m.first_failed_at AT TIME ZONE 'UTC' AS text) AS first_failed_at, m.rewind_of)
      SELECT claimed.* FROM claimed JOIN due USING (id) ORDER BY due.next_attempt_at, due.id
      """;

  /** {@link #HEADS_CLAIM} sized to a result budget, as {@link #CLAIM_SIZED}. */
  static final String HEADS_CLAIM_SIZED =
      """
      WITH due AS (SELECT m.ctid, m.id, m.next_attempt_at,
            octet_length(m.payload) + COALESCE(octet_length(m.headers), 0)
            + COALESCE(octet_length(m.destination), 0) + COALESCE(octet_length(m.idempotency_key), 0)
            + octet_length(m.aggregate_type) + octet_length(m.aggregate_id) + octet_length(m.event_type)
            + 512 AS bytes
        FROM {prefix}outbox_messages m
        WHERE m.id = ANY(ARRAY(SELECT CAST(value AS uuid) FROM json_array_elements_text(CAST(:ids AS json))))
          AND m.status = 'PENDING' AND m.next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
          AND NOT EXISTS (SELECT 1 FROM {prefix}outbox_messages e
            WHERE e.aggregate_type = m.aggregate_type AND e.aggregate_id = m.aggregate_id
              AND e.status = 'PENDING' AND e.seq < m.seq OFFSET 0)
        ORDER BY m.next_attempt_at, m.id FOR UPDATE OF m SKIP LOCKED),
      fit AS (
        SELECT ctid, id, next_attempt_at FROM (
          SELECT ctid, id, next_attempt_at, sum(bytes) OVER w AS running, row_number() OVER w AS n
          FROM due WINDOW w AS (ORDER BY next_attempt_at, id)) sized
        WHERE running <= :maxBytes OR n = 1),
      claimed AS (
        UPDATE {prefix}outbox_messages m
        SET next_attempt_at = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'), locked_until = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'),
          locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM fit))
        RETURNING m.id, m.aggregate_type, m.aggregate_id, m.event_type,
          CASE WHEN octet_length(m.payload) > 262144 THEN left(m.payload, 1000) ELSE m.payload END
            AS payload,
          octet_length(m.payload) AS payload_bytes, m.headers, m.destination, m.idempotency_key,
          CAST(m.occurred_at AT TIME ZONE 'UTC' AS text) AS occurred_at,
          CAST(m.created_at AT TIME ZONE 'UTC' AS text) AS created_at, m.retry_count, m.replay_count,
          CAST(m.first_failed_at AT TIME ZONE 'UTC' AS text) AS first_failed_at, m.rewind_of)
      SELECT claimed.*, (SELECT count(*) FROM due) AS due_rows
      FROM claimed JOIN fit USING (id) ORDER BY fit.next_attempt_at, fit.id
      """;

  /** {@link #HEADS_CLAIM} where rows are bounded, as {@link #CLAIM_ROW_SIZED}. */
  static final String HEADS_CLAIM_ROW_SIZED =
      """
      WITH due AS (SELECT m.ctid, m.id, m.next_attempt_at,
            octet_length(m.payload) + COALESCE(octet_length(m.headers), 0)
            + COALESCE(octet_length(m.destination), 0) + COALESCE(octet_length(m.idempotency_key), 0)
            + octet_length(m.aggregate_type) + octet_length(m.aggregate_id) + octet_length(m.event_type)
            + 512 AS bytes
        FROM {prefix}outbox_messages m
        WHERE m.id = ANY(ARRAY(SELECT CAST(value AS uuid) FROM json_array_elements_text(CAST(:ids AS json))))
          AND m.status = 'PENDING' AND m.next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
          AND NOT EXISTS (SELECT 1 FROM {prefix}outbox_messages e
            WHERE e.aggregate_type = m.aggregate_type AND e.aggregate_id = m.aggregate_id
              AND e.status = 'PENDING' AND e.seq < m.seq OFFSET 0)
        ORDER BY m.next_attempt_at, m.id FOR UPDATE OF m SKIP LOCKED),
      fit AS (
        SELECT ctid, id, next_attempt_at FROM (
          SELECT ctid, id, next_attempt_at, sum(bytes) OVER w AS running, row_number() OVER w AS n
          FROM due WINDOW w AS (ORDER BY next_attempt_at, id)) sized
        WHERE running <= :maxBytes OR n = 1),
      claimed AS (
        UPDATE {prefix}outbox_messages m
        SET next_attempt_at = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'), locked_until = (CAST(:leaseEnd AS timestamp) AT TIME ZONE 'UTC'),
          locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM fit))
        RETURNING m.id, m.aggregate_type, m.aggregate_id, m.event_type,
          CASE WHEN octet_length(m.payload) > 262144
            OR octet_length(m.payload) + COALESCE(octet_length(m.headers), 0)
              + COALESCE(octet_length(m.destination), 0) + COALESCE(octet_length(m.idempotency_key), 0)
              + octet_length(m.aggregate_type) + octet_length(m.aggregate_id) + octet_length(m.event_type)
              + 512 > 64000
            THEN left(m.payload, 1000) ELSE m.payload END AS payload,
          octet_length(m.payload) AS payload_bytes,
          CASE WHEN octet_length(m.headers) > 16384 THEN NULL ELSE m.headers END AS headers,
          octet_length(m.headers) AS headers_bytes, m.destination, m.idempotency_key,
          CAST(m.occurred_at AT TIME ZONE 'UTC' AS text) AS occurred_at,
          CAST(m.created_at AT TIME ZONE 'UTC' AS text) AS created_at, m.retry_count, m.replay_count,
          CAST(m.first_failed_at AT TIME ZONE 'UTC' AS text) AS first_failed_at, m.rewind_of)
      SELECT claimed.*, (SELECT count(*) FROM due) AS due_rows
      FROM claimed JOIN fit USING (id) ORDER BY fit.next_attempt_at, fit.id
      """;

  /**
   * The ordered claim's key walk: a loose scan of the partial key index (aggregate_type,
   * aggregate_id, seq WHERE status = 'PENDING'), one descent per aggregate to its head, at most
   * :keys, within the range {@link #WALK_AFTER} and {@link #WALK_UP_TO} bound where {@code {after}}
   * and {@code {upTo}} stand (or nothing); then whether each head is ready: due and its aggregate
   * not parked.
   */
  static final String WALK =
      """
      WITH RECURSIVE walk AS (
        (SELECT e.aggregate_type, e.aggregate_id, e.id, e.next_attempt_at, 1 AS n
         FROM {prefix}outbox_messages e WHERE e.status = 'PENDING'{after}{upTo}
         ORDER BY e.aggregate_type, e.aggregate_id, e.seq LIMIT 1)
        UNION ALL
        SELECT nx.aggregate_type, nx.aggregate_id, nx.id, nx.next_attempt_at, walk.n + 1
        FROM walk CROSS JOIN LATERAL (
          SELECT e.aggregate_type, e.aggregate_id, e.id, e.next_attempt_at FROM {prefix}outbox_messages e
          WHERE e.status = 'PENDING'
            AND (e.aggregate_type, e.aggregate_id) > (walk.aggregate_type, walk.aggregate_id){upTo}
          ORDER BY e.aggregate_type, e.aggregate_id, e.seq LIMIT 1) nx
        WHERE walk.n < :keys)
      SELECT w.aggregate_type, w.aggregate_id, CAST(w.id AS text) AS id,
        CASE WHEN w.next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
          AND NOT EXISTS (SELECT 1 FROM {prefix}outbox_parked_keys k
            WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)
        THEN 1 ELSE 0 END AS ready
      FROM walk w ORDER BY w.n
      """;

  /** The walk's lower bound, exclusive. */
  static final String WALK_AFTER =
      " AND (e.aggregate_type, e.aggregate_id) > (:afterType, :afterId)";

  /** The walk's upper bound, inclusive. */
  static final String WALK_UP_TO =
      " AND (e.aggregate_type, e.aggregate_id) <= (:upToType, :upToId)";

  /**
   * Holding back the rows behind heads ({@code :ids}) that now back off or wait for their
   * destination: due no earlier than their head. Each head read by primary key (a LATERAL subquery,
   * its status checked outside it), the rows behind it within :perHead of its seq along the key
   * index, locked SKIP LOCKED and updated by ctid (docs/PERFORMANCE.md tells why).
   */
  static final String HOLD_BEHIND =
      """
      WITH h AS (
        SELECT x.aggregate_type, x.aggregate_id, x.seq, x.next_attempt_at
        FROM json_array_elements_text(CAST(:ids AS json)) i CROSS JOIN LATERAL (
          SELECT aggregate_type, aggregate_id, seq, next_attempt_at, status FROM {prefix}outbox_messages
          WHERE id = CAST(i.value AS uuid) OFFSET 0) x
        WHERE x.status = 'PENDING'),
      behind AS (
        SELECT b.ctid, h.next_attempt_at FROM h CROSS JOIN LATERAL (
          SELECT ctid FROM {prefix}outbox_messages b
          WHERE b.aggregate_type = h.aggregate_type AND b.aggregate_id = h.aggregate_id
            AND b.status = 'PENDING' AND b.seq > h.seq AND b.seq <= h.seq + :perHead
            AND b.next_attempt_at < h.next_attempt_at
          ORDER BY b.seq FOR UPDATE SKIP LOCKED) b)
      UPDATE {prefix}outbox_messages m SET next_attempt_at = behind.next_attempt_at FROM behind
      WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM behind)) AND m.ctid = behind.ctid
      """;

  /**
   * Holding back, after a short ordered claim, the rows of its window (the :scan oldest due rows,
   * read without locking, of aggregates not parked; OFFSET 0 keeps each NOT EXISTS a probe per row)
   * that are due before their own aggregate's head while that head waits and is not under a live
   * lease; locked SKIP LOCKED and updated by ctid.
   */
  static final String HOLD_BEHIND_WAITING =
      """
      WITH c AS (SELECT ctid, id, next_attempt_at, aggregate_type, aggregate_id, seq FROM (
          SELECT ctid, id, next_attempt_at, aggregate_type, aggregate_id, seq FROM {prefix}outbox_messages
          WHERE status = 'PENDING' AND next_attempt_at <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
          ORDER BY next_attempt_at, id LIMIT :scan) w
        WHERE NOT EXISTS (SELECT 1 FROM {prefix}outbox_parked_keys k
          WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id OFFSET 0)),
      ahead AS (
        SELECT c.ctid, h.next_attempt_at AS due FROM c CROSS JOIN LATERAL (
          SELECT e.seq, e.next_attempt_at, e.locked_until FROM {prefix}outbox_messages e
          WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id
            AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1) h
        WHERE h.seq < c.seq AND h.next_attempt_at > c.next_attempt_at
          AND (h.locked_until IS NULL OR h.locked_until <= (CAST(:now AS timestamp) AT TIME ZONE 'UTC'))),
      held AS (
        SELECT ctid FROM {prefix}outbox_messages WHERE ctid = ANY(ARRAY(SELECT ctid FROM ahead))
        FOR UPDATE SKIP LOCKED)
      UPDATE {prefix}outbox_messages m SET next_attempt_at = ahead.due FROM ahead
      WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM held)) AND m.ctid = ahead.ctid
      """;

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
      SET aggregate_type = :type, aggregate_id = :id,
        moved_at = (CAST(:now AS timestamp) AT TIME ZONE 'UTC')
      WHERE cursor_name = :name
      """;

  /** A cursor's row deleted by hand, inserted again; one another claim inserted first is kept. */
  static final String CURSOR_INSERT =
      """
      INSERT INTO {prefix}outbox_claim_cursors (cursor_name, aggregate_type, aggregate_id, moved_at)
      VALUES (:name, :type, :id, (CAST(:now AS timestamp) AT TIME ZONE 'UTC')) ON CONFLICT DO NOTHING
      """;

  private PostgresClaimSql() {}
}
