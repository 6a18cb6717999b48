package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.ErrorText;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * How MySQL completes claimed rows: published (deleted, or kept as SENT), retried, deferred, and
 * who holds the rows a completion missed. Each locks the rows first ({@link MysqlLocks}), so that
 * the ids it changed are known exactly, then changes them by id; per-row values go as a batch.
 */
final class MysqlCompletions {
  private static final String MARK_SENT =
      """
      UPDATE {messages}
      SET status = 'SENT', sent_at = :now, locked_by = NULL, locked_until = NULL
      WHERE id IN
      """;

  private static final String RETRY =
      """
      UPDATE {messages}
      SET retry_count = retry_count + 1, next_attempt_at = :due,
        last_error_code = :code, last_error_reason = :reason,
        first_failed_at = COALESCE(first_failed_at, :now),
        locked_by = NULL, locked_until = NULL, waiting_for = NULL
      WHERE id = :id AND locked_by = :owner AND status = 'PENDING'
      """;

  /** A deferral with an error code: it records what the row waits for. */
  private static final String DEFER =
      """
      UPDATE {messages}
      SET next_attempt_at = :due, last_error_code = :code, last_error_reason = :reason,
        waiting_for = :waitingFor, locked_by = NULL, locked_until = NULL
      WHERE id = :id AND locked_by = :owner AND status = 'PENDING'
      """;

  /** A deferral without an error code (a release): the last error and what it waits for stay. */
  private static final String RELEASE =
      """
      UPDATE {messages} SET next_attempt_at = :due, locked_by = NULL, locked_until = NULL
      WHERE id = :id AND locked_by = :owner AND status = 'PENDING'
      """;

  private final MysqlLocks locks;
  private final String markSent;
  private final String delete;
  private final String retry;
  private final String defer;
  private final String release;
  private final String holders;

  MysqlCompletions(SqlTemplate sql, MysqlLocks locks) {
    this.locks = locks;
    this.markSent = sql.fill(MARK_SENT);
    this.delete = sql.fill("DELETE FROM {messages} WHERE id IN");
    this.retry = sql.fill(RETRY);
    this.defer = sql.fill(DEFER);
    this.release = sql.fill(RELEASE);
    this.holders =
        sql.fill("SELECT id, locked_by FROM {messages} WHERE status = 'PENDING' AND id IN");
  }

  /**
   * Locks the PENDING rows among {@code ids} that {@code owner} still holds first (there is no
   * DELETE ... RETURNING), so that the ids changed are known exactly; then deletes them, or marks
   * them SENT.
   */
  Set<UUID> published(SqlSession s, String owner, List<UUID> ids, Instant now, boolean retain) {
    Set<UUID> present = locks.lockPending(s, owner, ids);
    List<UUID> changing = ids.stream().filter(present::contains).toList();
    for (List<UUID> chunk : InLists.chunks(changing)) {
      Params params = Params.of();
      String in = " " + InLists.uuids("id", chunk, params);
      if (retain) {
        params.timestamp("now", now);
        s.update(markSent + in, params);
      } else {
        s.update(delete + in, params);
      }
    }
    return present;
  }

  /** Locks the rows {@code owner} still holds, then updates each; the lock makes the ids exact. */
  Set<UUID> retried(SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now) {
    Set<UUID> owned =
        locks.lockPending(s, owner, retries.stream().map(DeliveryOutcome::id).toList());
    List<Params> sets = new ArrayList<>(owned.size());
    for (DeliveryOutcome.Retry r : retries) {
      if (owned.contains(r.id())) {
        sets.add(
            Params.of()
                .timestamp("due", r.nextAttemptAt())
                .text("code", ErrorText.code(r.errorCode()))
                .text("reason", ErrorText.reason(r.reason()))
                .timestamp("now", now)
                .uuid("id", r.id())
                .text("owner", owner));
      }
    }
    if (!sets.isEmpty()) {
      s.batch(retry, sets);
    }
    return owned;
  }

  /**
   * Locks the rows {@code owner} still holds, then updates each: those with an error code with it,
   * the others (releases) keeping their last error.
   */
  Set<UUID> deferred(SqlSession s, String owner, List<DeliveryOutcome.Defer> deferrals) {
    Set<UUID> owned =
        locks.lockPending(s, owner, deferrals.stream().map(DeliveryOutcome::id).toList());
    List<Params> withError = new ArrayList<>();
    List<Params> released = new ArrayList<>();
    for (DeliveryOutcome.Defer d : deferrals) {
      if (owned.contains(d.id())) {
        if (d.errorCode() == null) {
          released.add(
              Params.of().timestamp("due", d.until()).uuid("id", d.id()).text("owner", owner));
        } else {
          withError.add(
              Params.of()
                  .timestamp("due", d.until())
                  .text("code", ErrorText.code(d.errorCode()))
                  .text("reason", ErrorText.reason(d.reason()))
                  .text("waitingFor", waitingFor(d))
                  .uuid("id", d.id())
                  .text("owner", owner));
        }
      }
    }
    if (!withError.isEmpty()) {
      s.batch(defer, withError);
    }
    if (!released.isEmpty()) {
      s.batch(release, released);
    }
    return owned;
  }

  Map<UUID, String> holders(SqlSession s, Collection<UUID> ids) {
    Map<UUID, String> found = new HashMap<>();
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      for (Row row : s.query(holders + " " + InLists.uuids("id", chunk, params), params)) {
        found.put(row.uuid("id"), row.text("locked_by"));
      }
    }
    return found;
  }

  /**
   * The {@code waiting_for} a deferral records: the key of the destination the row waits for
   * ({@link DestinationHealth#key}), null when it names none.
   */
  private static String waitingFor(DeliveryOutcome.Defer deferral) {
    return deferral.destination() == null ? null : DestinationHealth.key(deferral.destination());
  }
}
