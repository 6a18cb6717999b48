package dev.lambdaoutbox.store.dialect.mysql;

import dev.lambdaoutbox.store.dialect.portable.PortableParking;
import dev.lambdaoutbox.store.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.dialect.rows.InLists;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * How MySQL parks an aggregate before its head is dead-lettered in the same transaction: lock the
 * heads and read their keys, then per head mark the events behind it (due never, the dead letter
 * named) and record the key. (The parked keys' reads and their release: {@link PortableParking}.)
 */
final class MysqlParking {
  private static final String MARK_BEHIND =
      """
      UPDATE {messages}
      SET next_attempt_at = :parkedUntil, last_error_code = :parked, last_error_reason = :reason
      WHERE aggregate_type = :type AND aggregate_id = :aggregateId
        AND status = 'PENDING' AND seq > :seq
      """;

  private static final String PARK_KEY =
      """
      INSERT INTO {parkedKeys}
        (aggregate_type, aggregate_id, dead_letter_id, head_seq, parked_events, parked_at)
      VALUES (:type, :aggregateId, :id, :seq, :events, :now)
      """;

  private final MysqlLocks locks;
  private final String markBehind;
  private final String parkKey;

  MysqlParking(SqlTemplate sql, MysqlLocks locks) {
    this.locks = locks;
    this.markBehind = sql.fill(MARK_BEHIND);
    this.parkKey = sql.fill(PARK_KEY);
  }

  /**
   * Parks the heads whose ids as stored are the keys of {@code deadLetterIds}, each behind its dead
   * letter; with an {@code owner}, only the heads it still holds. A key parked already (it cannot
   * be, while its head was leased) keeps its row.
   */
  Map<UUID, Integer> park(
      SqlSession s, String owner, Map<String, UUID> deadLetterIds, Instant now) {
    Map<UUID, Integer> parked = new HashMap<>();
    for (List<String> chunk : InLists.chunks(List.copyOf(deadLetterIds.keySet()))) {
      Params params = Params.of();
      String heads =
          locks.lockPendingSql(
              "id, aggregate_type, aggregate_id, seq",
              owner,
              InLists.texts("id", chunk, params),
              params);
      for (Row head : s.query(heads, params)) {
        UUID deadLetterId = deadLetterIds.get(head.text("id"));
        Params key =
            Params.of()
                .text("type", head.text("aggregate_type"))
                .text("aggregateId", head.text("aggregate_id"))
                .longValue("seq", head.longValue("seq"));
        int events =
            s.update(
                markBehind,
                key.timestamp("parkedUntil", PortableParking.PARKED_UNTIL)
                    .text("parked", PortableParking.PARKED)
                    .text("reason", PortableParking.reason(deadLetterId)));
        try {
          s.update(
              parkKey,
              Params.of()
                  .text("type", head.text("aggregate_type"))
                  .text("aggregateId", head.text("aggregate_id"))
                  .uuid("id", deadLetterId)
                  .longValue("seq", head.longValue("seq"))
                  .integer("events", events)
                  .timestamp("now", now));
          parked.put(deadLetterId, events);
        } catch (DuplicateKeyException e) {
          // The key is parked already, behind another dead letter: its row stays as it is.
        }
      }
    }
    return parked;
  }
}
