package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

/**
 * The parked-keys statements, the same in every dialect apart from how a time is written: a parked
 * key read, listed and counted, and released. (Parking itself, which the poller runs before a head
 * is dead-lettered, is each dialect's own.)
 *
 * <p>A parked aggregate is its row in the parked-keys table, which the ordered claim probes for
 * each head it walks to: its events are not touched, so parking and releasing an aggregate of any
 * size is one row each.
 */
public final class PortableParking {
  /** The parked keys whose waiting events one statement counts. */
  static final int KEYS_PER_COUNT = 100;

  private final String selectByDeadLetter;
  private final String list;
  private final String countWaiting;
  private final String count;
  private final String restoreHead;
  private final String delete;

  public PortableParking(SqlTemplate sql) {
    String select =
        """
        SELECT k.aggregate_type, k.aggregate_id, k.dead_letter_id, k.head_seq, k.parked_events,
          {utc:k.parked_at} AS parked_at
        FROM {parkedKeys} k
        """;
    this.selectByDeadLetter = sql.fill(select + "WHERE k.dead_letter_id = :id");
    this.list =
        sql.fill(select + "ORDER BY k.parked_at, k.aggregate_type, k.aggregate_id LIMIT :limit");
    // One key's waiting events, counted along the key index no further than the cap plus one: a
    // derived table LIMITed per key, so a key of a million events costs what one of the cap does.
    // The keys' parts are joined by UNION ALL, one statement for a page of keys. (MariaDB refuses
    // a derived table correlated with the parked-keys row; these take the key as parameters.)
    this.countWaiting =
        sql.fill(
            """
            SELECT {n} AS n, count(*) AS waiting_events FROM (
              SELECT 1 AS one FROM {messages}
              WHERE aggregate_type = :type{n} AND aggregate_id = :aggregateId{n}
                AND status = 'PENDING' LIMIT {cap}) w{n}
            """
                .replace("{n}", "#"),
            "cap",
            DeadLetter.COUNT_CAP + 1);
    this.count =
        sql.fill(
            "SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {parkedKeys} LIMIT {cap})"
                + " capped",
            "cap",
            DeadLetter.COUNT_CAP + 1);
    this.restoreHead =
        sql.fill("UPDATE {messages} SET seq = :seq WHERE id = :id AND status = 'PENDING'");
    this.delete =
        sql.fill(
            "DELETE FROM {parkedKeys} WHERE aggregate_type = :type AND aggregate_id = :aggregateId");
  }

  /** The key parked behind dead letter {@code deadLetterId}, or null; with {@code lock}, locked. */
  public ParkedKey parkedKey(SqlSession s, UUID deadLetterId, boolean lock) {
    List<Row> rows =
        s.query(
            selectByDeadLetter + (lock ? " FOR UPDATE" : ""), Params.of().uuid("id", deadLetterId));
    return rows.isEmpty() ? null : withWaiting(s, rows).get(0);
  }

  /** Up to {@code limit} parked keys, longest parked first, with their waiting events. */
  public List<ParkedKey> parkedKeys(SqlSession s, int limit) {
    return withWaiting(s, s.query(list, Params.of().integer("limit", limit)));
  }

  /**
   * The keys of {@code rows}, each with its waiting events counted up to {@link
   * DeadLetter#COUNT_CAP} plus one, {@link #KEYS_PER_COUNT} keys a statement.
   */
  private List<ParkedKey> withWaiting(SqlSession s, List<Row> rows) {
    List<ParkedKey> keys = new ArrayList<>(rows.size());
    for (int from = 0; from < rows.size(); from += KEYS_PER_COUNT) {
      List<Row> page = rows.subList(from, Math.min(rows.size(), from + KEYS_PER_COUNT));
      Params params = Params.of();
      StringJoiner union = new StringJoiner(" UNION ALL ");
      for (int i = 0; i < page.size(); i++) {
        union.add(countWaiting.replace("#", Integer.toString(i)));
        params
            .text("type" + i, page.get(i).text("aggregate_type"))
            .text("aggregateId" + i, page.get(i).text("aggregate_id"));
      }
      long[] waiting = new long[page.size()];
      for (Row count : s.query(union.toString(), params)) {
        waiting[count.integer("n")] = count.longValue("waiting_events");
      }
      for (int i = 0; i < page.size(); i++) {
        keys.add(read(page.get(i), waiting[i]));
      }
    }
    return keys;
  }

  public long countParkedKeys(SqlSession s) {
    return s.query(count, Params.none()).get(0).longValue("row_count");
  }

  /**
   * Releases a parked key, two rows whatever its size: with {@code restoreHead}, the replayed head
   * (back in the outbox under the dead letter's id) takes its old {@code seq} again, ahead of the
   * events behind it; the parked-keys row goes. Its events, never marked, are due as they were.
   */
  public void release(SqlSession s, ParkedKey key, boolean restoreHead) {
    if (restoreHead) {
      s.update(
          this.restoreHead,
          Params.of().longValue("seq", key.headSeq()).uuid("id", key.deadLetterId()));
    }
    s.update(delete, keyParams(key));
  }

  private static Params keyParams(ParkedKey key) {
    return Params.of().text("type", key.aggregateType()).text("aggregateId", key.aggregateId());
  }

  private static ParkedKey read(Row row, long waitingEvents) {
    return new ParkedKey(
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.uuid("dead_letter_id"),
        row.longValue("head_seq"),
        row.integer("parked_events"),
        row.instant("parked_at"),
        waitingEvents);
  }
}
