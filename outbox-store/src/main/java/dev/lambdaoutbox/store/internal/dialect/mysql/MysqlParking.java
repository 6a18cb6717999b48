package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.store.internal.dialect.portable.PortableParking;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
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
 * How MySQL parks an aggregate before its head is dead-lettered in the same transaction, a few
 * statements whatever the aggregate's size: lock the heads and read their keys, then per head count
 * the events behind it along the key index, no further than {@link DeadLetter#COUNT_CAP} plus one,
 * and record the key. The events themselves are not touched: the ordered claim skips a parked key.
 * (The parked keys' reads and their release: {@link PortableParking}.)
 */
final class MysqlParking {
  private static final String COUNT_BEHIND =
      """
      SELECT count(*) AS behind FROM (
        SELECT 1 AS one FROM {messages}
        WHERE aggregate_type = :type AND aggregate_id = :aggregateId
          AND status = 'PENDING' AND seq > :seq LIMIT {cap}) capped
      """;

  private static final String PARK_KEY =
      """
      INSERT INTO {parkedKeys}
        (aggregate_type, aggregate_id, dead_letter_id, head_seq, parked_events, parked_at)
      VALUES (:type, :aggregateId, :id, :seq, :events, :now)
      """;

  private final MysqlLocks locks;
  private final String countBehind;
  private final String parkKey;

  MysqlParking(SqlTemplate sql, MysqlLocks locks) {
    this.locks = locks;
    this.countBehind = sql.fill(COUNT_BEHIND, "cap", DeadLetter.COUNT_CAP + 1);
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
        int events = (int) s.query(countBehind, key).get(0).longValue("behind");
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
