package dev.lambdaoutbox.store.dialect.postgres;

import dev.lambdaoutbox.store.dialect.portable.PortableParking;
import dev.lambdaoutbox.store.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.dialect.rows.JsonLists;
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
 * one statement: lock the heads the owner still holds, mark the events behind each (due never, the
 * dead letter named), and record the key with the head's seq and how many events it parked. (The
 * parked keys' reads and their release: {@link PortableParking}.)
 */
final class PostgresParking {
  private static final String PARK =
      """
      WITH h AS (
        SELECT id, aggregate_type, aggregate_id, seq FROM {messages}
        WHERE id = ANY({idArray}) AND locked_by = :owner AND status = 'PENDING' FOR UPDATE),
      held AS (
        UPDATE {messages} m
        SET next_attempt_at = {at:parkedUntil}, last_error_code = :parked,
          last_error_reason = :reasonStart || h.id || :reasonEnd
        FROM h WHERE m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id
          AND m.status = 'PENDING' AND m.seq > h.seq
        RETURNING h.id)
      INSERT INTO {parkedKeys}
        (aggregate_type, aggregate_id, dead_letter_id, head_seq, parked_events, parked_at)
      SELECT h.aggregate_type, h.aggregate_id, h.id, h.seq,
        (SELECT count(*) FROM held WHERE held.id = h.id), {at:now}
      FROM h ON CONFLICT DO NOTHING RETURNING dead_letter_id, parked_events
      """;

  private final String park;

  PostgresParking(SqlTemplate sql) {
    this.park = sql.fill(PARK, "idArray", PostgresSyntax.ID_ARRAY);
  }

  Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now) {
    String reason = PortableParking.reason("\u0000");
    int split = reason.indexOf('\u0000');
    Params params =
        Params.of()
            .json("ids", JsonLists.uuids(heads))
            .text("owner", owner)
            .timestamp("parkedUntil", PortableParking.PARKED_UNTIL)
            .text("parked", PortableParking.PARKED)
            .text("reasonStart", reason.substring(0, split))
            .text("reasonEnd", reason.substring(split + 1))
            .timestamp("now", now);
    Map<UUID, Integer> parked = new HashMap<>();
    for (Row row : s.query(park, params)) {
      parked.put(row.uuid("dead_letter_id"), row.integer("parked_events"));
    }
    return parked;
  }
}
