package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.ErrorText;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;

/**
 * The destination health table's statements, the same in every dialect apart from how a time is
 * written, and a row of it read back as a {@link DestinationHealth}. The insert is written here;
 * what happens when another poller inserted the row first is the dialect's ({@code
 * insertDestinationHealth} in each dialect's home).
 */
public final class PortableHealth {
  private final String selectAll;
  private final String selectOne;
  private final String insert;
  private final String claimProbe;
  private final String failedProbe;
  private final String delete;
  private final String deleteStale;

  public PortableHealth(SqlTemplate sql) {
    this.selectAll =
        sql.fill(
            """
            SELECT destination, state, error_code, error_reason,
              {utc:down_since} AS down_since, failed_probes,
              {utc:next_probe_at} AS next_probe_at, {utc:updated_at} AS updated_at
            FROM {destinationHealth}
            """);
    this.selectOne = selectAll + " WHERE destination_key = :key";
    this.insert =
        sql.fill(
            """
            INSERT INTO {destinationHealth}
              (destination_key, destination, state, error_code, error_reason, down_since,
               failed_probes, next_probe_at, updated_at)
            VALUES (:key, :destination, :state, :code, :reason, {at:now}, 0, {at:next}, {at:now})
            """);
    // The compare-and-set: only a probe still due moves; the next one asking finds it moved.
    this.claimProbe =
        sql.fill(
            """
            UPDATE {destinationHealth} SET next_probe_at = {at:next}, updated_at = {at:now}
            WHERE destination_key = :key AND next_probe_at <= {at:now}
            """);
    this.failedProbe =
        sql.fill(
            """
            UPDATE {destinationHealth}
            SET failed_probes = failed_probes + 1, state = :state, error_code = :code,
              error_reason = :reason, updated_at = {at:now}
            WHERE destination_key = :key
            """);
    this.delete = sql.fill("DELETE FROM {destinationHealth} WHERE destination_key = :key");
    this.deleteStale =
        sql.fill("DELETE FROM {destinationHealth} WHERE next_probe_at < {at:staleBefore}");
  }

  /** Every destination marked down. */
  public List<DestinationHealth> all(SqlSession s) {
    return s.query(selectAll, Params.none()).stream().map(PortableHealth::read).toList();
  }

  /** The row of {@code destination}, or null; with {@code lock}, locked until the end. */
  public DestinationHealth one(SqlSession s, String destination, boolean lock) {
    List<Row> rows = s.query(selectOne + (lock ? " FOR UPDATE" : ""), key(destination));
    return rows.isEmpty() ? null : read(rows.get(0));
  }

  /** {@code INSERT INTO ... VALUES (...)}, for the dialect to complete and run. */
  public String insert() {
    return insert;
  }

  public boolean claimProbe(SqlSession s, String destination, Instant now, Instant next) {
    return s.update(claimProbe, key(destination).timestamp("now", now).timestamp("next", next))
        == 1;
  }

  public boolean recordFailedProbe(
      SqlSession s,
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now) {
    Params params =
        key(destination)
            .text("state", state.name())
            .text("code", ErrorText.requiredCode(errorCode))
            .text("reason", ErrorText.reason(reason))
            .timestamp("now", now);
    return s.update(failedProbe, params) == 1;
  }

  public boolean delete(SqlSession s, String destination) {
    return s.update(delete, key(destination)) == 1;
  }

  public int deleteStale(SqlSession s, Instant staleBefore) {
    return s.update(deleteStale, Params.of().timestamp("staleBefore", staleBefore));
  }

  /** The parameters of {@link #insert()} for {@code row}. */
  public static Params insertParams(DestinationHealth row) {
    return Params.of()
        .text("key", DestinationHealth.key(row.destination()))
        .text("destination", row.destination())
        .text("state", row.state().name())
        .text("code", ErrorText.requiredCode(row.errorCode()))
        .text("reason", ErrorText.reason(row.errorReason()))
        .timestamp("now", row.downSince())
        .timestamp("next", row.nextProbeAt());
  }

  private static Params key(String destination) {
    return Params.of().text("key", DestinationHealth.key(destination));
  }

  private static DestinationHealth read(Row row) {
    return new DestinationHealth(
        row.text("destination"),
        DestinationState.valueOf(row.text("state")),
        row.text("error_code"),
        row.text("error_reason"),
        row.instant("down_since"),
        row.integer("failed_probes"),
        row.instant("next_probe_at"),
        row.instant("updated_at"));
  }
}
