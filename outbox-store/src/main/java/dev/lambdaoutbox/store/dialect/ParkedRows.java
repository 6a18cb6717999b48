package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.deadletter.ParkedKey;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import java.time.Instant;
import java.util.function.UnaryOperator;

/**
 * The parked-keys table's statements that are the same in every dialect apart from how a time is
 * written, and a row of it read back as a {@link ParkedKey}.
 *
 * <p>A parked aggregate's events are recognised by its row in the parked-keys table, which the
 * ordered claim skips. Those that were in the outbox when it parked are also marked: their {@code
 * next_attempt_at} is {@link #PARKED_UNTIL}, so that no claim walks past them, and their last error
 * says behind which dead letter they wait. Releasing the key makes them due again.
 */
final class ParkedRows {
  /** The due time of a parked event: never, until its key is released. */
  static final Instant PARKED_UNTIL = Instant.parse("9999-01-01T00:00:00Z");

  /** The last_error_code of an event parked behind its dead-lettered head. */
  static final String PARKED = "PARKED";

  private final String select;
  private final String selectByDeadLetter;
  private final String list;
  private final String count;
  private final String restoreHead;
  private final String unpark;
  private final String delete;
  private final String countsSelectList;

  ParkedRows(OutboxTables tables, UnaryOperator<String> at, UnaryOperator<String> utcText) {
    String k = tables.parkedKeys();
    String m = tables.messages();
    String waiting =
        "(SELECT count(*) FROM "
            + m
            + " w WHERE w.aggregate_type = k.aggregate_type AND w.aggregate_id = k.aggregate_id"
            + " AND w.status = 'PENDING') AS waiting_events";
    this.select =
        "SELECT k.aggregate_type, k.aggregate_id, k.dead_letter_id, k.head_seq, k.parked_events, "
            + utcText.apply("k.parked_at")
            + " AS parked_at, "
            + waiting
            + " FROM "
            + k
            + " k";
    this.selectByDeadLetter = select + " WHERE k.dead_letter_id = :id";
    this.list = select + " ORDER BY k.parked_at, k.aggregate_type, k.aggregate_id LIMIT :limit";
    this.count = "SELECT count(*) AS row_count FROM " + k;
    this.restoreHead = "UPDATE " + m + " SET seq = :seq WHERE id = :id AND status = 'PENDING'";
    this.unpark =
        "UPDATE "
            + m
            + " SET next_attempt_at = "
            + at.apply("now")
            + ", last_error_code = NULL, last_error_reason = NULL"
            + " WHERE aggregate_type = :type AND aggregate_id = :aggregateId"
            + " AND status = 'PENDING' AND next_attempt_at >= "
            + at.apply("parkedUntil");
    this.delete =
        "DELETE FROM " + k + " WHERE aggregate_type = :type AND aggregate_id = :aggregateId";
    int cap = OutboxStore.PARKED_COUNT_CAP + 1;
    this.countsSelectList =
        "(SELECT count(*) FROM (SELECT 1 AS one FROM "
            + k
            + " LIMIT "
            + cap
            + ") capped_keys) AS parked_keys, (SELECT count(*) FROM (SELECT 1 AS one FROM "
            + k
            + " pk JOIN "
            + m
            + " pm ON pm.aggregate_type = pk.aggregate_type AND pm.aggregate_id = pk.aggregate_id"
            + " AND pm.status = 'PENDING' LIMIT "
            + cap
            + ") capped_events) AS parked_events";
  }

  /** The parked key whose head is dead letter {@code :id}, with its waiting events. */
  String selectByDeadLetter(boolean lock) {
    return selectByDeadLetter + (lock ? " FOR UPDATE" : "");
  }

  /** Parked keys, longest parked first, up to {@code :limit}. */
  String list() {
    return list;
  }

  String count() {
    return count;
  }

  /**
   * The backlog's columns {@code parked_keys} and {@code parked_events}, each counted no further
   * than {@link OutboxStore#PARKED_COUNT_CAP} plus one.
   */
  String countsSelectList() {
    return countsSelectList;
  }

  /** Gives the replayed head, back in the outbox, its old place: {@code :seq}, row {@code :id}. */
  String restoreHead() {
    return restoreHead;
  }

  String unpark() {
    return unpark;
  }

  String delete() {
    return delete;
  }

  static Params keyParams(ParkedKey key) {
    return Params.of().text("type", key.aggregateType()).text("aggregateId", key.aggregateId());
  }

  static Params unparkParams(ParkedKey key, Instant now) {
    return keyParams(key).timestamp("now", now).timestamp("parkedUntil", PARKED_UNTIL);
  }

  static ParkedKey read(Row row) {
    return new ParkedKey(
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.uuid("dead_letter_id"),
        row.longValue("head_seq"),
        row.integer("parked_events"),
        row.instant("parked_at"),
        row.longValue("waiting_events"));
  }

  /** The reason a parked event's row shows: behind which dead letter it waits. */
  static String reason(Object deadLetterId) {
    return "parked behind dead letter "
        + deadLetterId
        + ", the oldest event of its aggregate; replay or discard it to release them";
  }
}
