package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.JsonLists;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.ErrorText;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * How PostgreSQL completes claimed rows: published (deleted, or kept as SENT), retried, deferred,
 * and who holds the rows a completion missed. Each is one statement whatever the batch size; the
 * per-row values travel as one JSON text parameter ({@code json_to_recordset}).
 */
final class PostgresCompletions {
  private static final String MARK_SENT =
      """
      UPDATE {messages}
      SET status = 'SENT', sent_at = {at:now}, locked_by = NULL, locked_until = NULL
      WHERE id = ANY({idArray}) AND status = 'PENDING' AND locked_by = :owner RETURNING id
      """;

  private static final String DELETE =
      """
      DELETE FROM {messages}
      WHERE id = ANY({idArray}) AND status = 'PENDING' AND locked_by = :owner RETURNING id
      """;

  private static final String RETRY =
      """
      UPDATE {messages} m
      SET retry_count = m.retry_count + 1,
        next_attempt_at = CAST(r.due AS timestamp) AT TIME ZONE 'UTC',
        last_error_code = r.code, last_error_reason = r.reason,
        first_failed_at = COALESCE(m.first_failed_at, {at:now}),
        locked_by = NULL, locked_until = NULL, waiting_for = NULL
      FROM json_to_recordset(CAST(:retries AS json)) AS r(id uuid, due text, code text, reason text)
      WHERE m.id = r.id AND m.locked_by = :owner AND m.status = 'PENDING' RETURNING m.id
      """;

  /**
   * A deferral keeps retry_count and records what the row waits for; one without an error code (a
   * release) keeps the last error and what the row waited for too.
   */
  private static final String DEFER =
      """
      UPDATE {messages} m
      SET next_attempt_at = CAST(d.due AS timestamp) AT TIME ZONE 'UTC',
        last_error_code = CASE WHEN d.code IS NULL THEN m.last_error_code ELSE d.code END,
        last_error_reason = CASE WHEN d.code IS NULL THEN m.last_error_reason ELSE d.reason END,
        waiting_for = CASE WHEN d.code IS NULL THEN m.waiting_for ELSE d.waiting END,
        locked_by = NULL, locked_until = NULL
      FROM json_to_recordset(CAST(:deferrals AS json))
        AS d(id uuid, due text, code text, reason text, waiting text)
      WHERE m.id = d.id AND m.locked_by = :owner AND m.status = 'PENDING' RETURNING m.id
      """;

  private static final String HOLDERS =
      "SELECT id, locked_by FROM {messages} WHERE id = ANY({idArray}) AND status = 'PENDING'";

  private final String markSent;
  private final String delete;
  private final String retry;
  private final String defer;
  private final String holders;

  PostgresCompletions(SqlTemplate sql) {
    String ids = PostgresSyntax.ID_ARRAY;
    this.markSent = sql.fill(MARK_SENT, "idArray", ids);
    this.delete = sql.fill(DELETE, "idArray", ids);
    this.retry = sql.fill(RETRY);
    this.defer = sql.fill(DEFER);
    this.holders = sql.fill(HOLDERS, "idArray", ids);
  }

  Set<UUID> published(SqlSession s, String owner, List<UUID> ids, Instant now, boolean retain) {
    Params params = Params.of().json("ids", JsonLists.uuids(ids)).text("owner", owner);
    if (retain) {
      return idsOf(s.query(markSent, params.timestamp("now", now)));
    }
    return idsOf(s.query(delete, params));
  }

  Set<UUID> retried(SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now) {
    String json =
        JsonLists.records(
            retries,
            (r, o) ->
                o.put("id", r.id().toString())
                    .put("due", JsonLists.utc(r.nextAttemptAt()))
                    .put("code", ErrorText.code(r.errorCode()))
                    .put("reason", ErrorText.reason(r.reason())));
    return idsOf(
        s.query(
            retry, Params.of().json("retries", json).timestamp("now", now).text("owner", owner)));
  }

  Set<UUID> deferred(SqlSession s, String owner, List<DeliveryOutcome.Defer> deferrals) {
    String json =
        JsonLists.records(
            deferrals,
            (d, o) ->
                o.put("id", d.id().toString())
                    .put("due", JsonLists.utc(d.until()))
                    .put("code", ErrorText.code(d.errorCode()))
                    .put("reason", ErrorText.reason(d.reason()))
                    .put("waiting", waitingFor(d)));
    return idsOf(s.query(defer, Params.of().json("deferrals", json).text("owner", owner)));
  }

  Map<UUID, String> holders(SqlSession s, Collection<UUID> ids) {
    Map<UUID, String> found = new HashMap<>();
    for (Row row : s.query(holders, Params.of().json("ids", JsonLists.uuids(ids)))) {
      found.put(row.uuid("id"), row.text("locked_by"));
    }
    return found;
  }

  /**
   * The {@code waiting_for} a deferral records: the key of the destination the row waits for
   * ({@link DestinationHealth#key}), null when it names none.
   */
  static String waitingFor(DeliveryOutcome.Defer deferral) {
    return deferral.destination() == null ? null : DestinationHealth.key(deferral.destination());
  }

  /** The ids a RETURNING id gave back. */
  static Set<UUID> idsOf(List<Row> rows) {
    Set<UUID> ids = new HashSet<>(rows.size() * 2);
    for (Row row : rows) {
      ids.add(row.uuid("id"));
    }
    return ids;
  }
}
