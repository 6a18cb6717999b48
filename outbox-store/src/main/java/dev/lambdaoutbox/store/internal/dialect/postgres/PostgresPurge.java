package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;

/**
 * How PostgreSQL purges: a purge locks the expired rows it takes, skipping those another purge
 * holds, along the time index, then deletes them by ctid (a TID scan; a row locked here keeps its
 * ctid). A DELETE ... WHERE id IN (that SELECT) is a join the planner may turn inside out on
 * statistics that say the table is empty (after a vacuum of a drained table, or before the first
 * analyze of a filled one): the locking SELECT re-run per row of the table, quadratic, and each
 * re-run locking rows the last one had not, so more than the limit went.
 */
final class PostgresPurge {
  /** Up to :limit rows kept as SENT that were sent before :cutoff, oldest first. */
  final String purgeSent;

  /** Up to :limit idempotency keys first seen before :cutoff, oldest first. */
  final String purgeKeys;

  PostgresPurge(SqlTemplate sql) {
    this.purgeSent =
        sql.fill(
            """
            DELETE FROM {messages} WHERE ctid = ANY(ARRAY(
              SELECT ctid FROM {messages} WHERE status = 'SENT' AND sent_at < {at:cutoff}
              ORDER BY sent_at LIMIT :limit FOR UPDATE SKIP LOCKED))
            """);
    this.purgeKeys =
        sql.fill(
            """
            DELETE FROM {idempotencyKeys} WHERE ctid = ANY(ARRAY(
              SELECT ctid FROM {idempotencyKeys} WHERE first_seen_at < {at:cutoff}
              ORDER BY first_seen_at LIMIT :limit FOR UPDATE SKIP LOCKED))
            """);
  }
}
