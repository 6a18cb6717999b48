package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.store.internal.dialect.portable.PortableParking;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.JsonLists;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * How PostgreSQL parks an aggregate before its head is dead-lettered in the same transaction, in
 * one statement whatever the aggregate's size: lock the heads the owner still holds and record each
 * key with the head's seq and the events behind it, counted along the key index no further than
 * {@link DeadLetter#COUNT_CAP} plus one. The events themselves are not touched: the ordered claim
 * skips a parked key. (The parked keys' reads and their release: {@link PortableParking}.)
 */
final class PostgresParking {
  private static final String PARK =
      """
      WITH h AS (
        SELECT id, aggregate_type, aggregate_id, seq FROM {messages}
        WHERE id = ANY({idArray}) AND locked_by = :owner AND status = 'PENDING' FOR UPDATE)
      INSERT INTO {parkedKeys}
        (aggregate_type, aggregate_id, dead_letter_id, head_seq, parked_events, parked_at)
      SELECT h.aggregate_type, h.aggregate_id, h.id, h.seq,
        (SELECT count(*) FROM (SELECT 1 AS one FROM {messages} m
           WHERE m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id
             AND m.status = 'PENDING' AND m.seq > h.seq LIMIT {cap}) behind), {at:now}
      FROM h ON CONFLICT DO NOTHING RETURNING dead_letter_id, parked_events
      """;

  private final String park;

  PostgresParking(SqlTemplate sql) {
    this.park = sql.fill(PARK, "idArray", PostgresSyntax.ID_ARRAY, "cap", DeadLetter.COUNT_CAP + 1);
  }

  Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now) {
    Params params =
        Params.of().json("ids", JsonLists.uuids(heads)).text("owner", owner).timestamp("now", now);
    Map<UUID, Integer> parked = new HashMap<>();
    for (Row row : s.query(park, params)) {
      parked.put(row.uuid("dead_letter_id"), row.integer("parked_events"));
    }
    return parked;
  }
}
