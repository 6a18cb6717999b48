package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.DestinationState;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import java.time.Instant;
import java.util.function.UnaryOperator;

/**
 * The destination health table's statements that are the same in every dialect apart from how a
 * time is written, and a row of it read back as a {@link DestinationHealth}.
 */
final class HealthRows {
  private final String table;
  private final UnaryOperator<String> at;
  private final String selectAll;
  private final String selectOne;
  private final String claimProbe;
  private final String failedProbe;
  private final String delete;
  private final String deleteStale;

  /**
   * @param at a timestamp parameter, given its name, as the dialect reads it in UTC
   * @param utcText a time expression as UTC text
   */
  HealthRows(String table, UnaryOperator<String> at, UnaryOperator<String> utcText) {
    this.table = table;
    this.at = at;
    String columns =
        "destination, state, error_code, error_reason, "
            + utcText.apply("down_since")
            + " AS down_since, failed_probes, "
            + utcText.apply("next_probe_at")
            + " AS next_probe_at, "
            + utcText.apply("updated_at")
            + " AS updated_at";
    this.selectAll = "SELECT " + columns + " FROM " + table;
    this.selectOne = selectAll + " WHERE destination_key = :key";
    // The compare-and-set: only a probe still due moves; the next one asking finds it moved.
    this.claimProbe =
        "UPDATE "
            + table
            + " SET next_probe_at = "
            + at.apply("next")
            + ", updated_at = "
            + at.apply("now")
            + " WHERE destination_key = :key AND next_probe_at <= "
            + at.apply("now");
    this.failedProbe =
        "UPDATE "
            + table
            + " SET failed_probes = failed_probes + 1, state = :state, error_code = :code,"
            + " error_reason = :reason, updated_at = "
            + at.apply("now")
            + " WHERE destination_key = :key";
    this.delete = "DELETE FROM " + table + " WHERE destination_key = :key";
    this.deleteStale = "DELETE FROM " + table + " WHERE next_probe_at < " + at.apply("staleBefore");
  }

  /** Every row. */
  String selectAll() {
    return selectAll;
  }

  /** The row of {@code :key}; with {@code lock}, locked until the transaction ends. */
  String selectOne(boolean lock) {
    return selectOne + (lock ? " FOR UPDATE" : "");
  }

  /** {@code INSERT INTO ... (columns) VALUES (...)}, to be completed by the dialect. */
  String insert() {
    return "INSERT INTO "
        + table
        + " (destination_key, destination, state, error_code, error_reason, down_since,"
        + " failed_probes, next_probe_at, updated_at) VALUES (:key, :destination, :state, :code,"
        + " :reason, "
        + at.apply("now")
        + ", 0, "
        + at.apply("next")
        + ", "
        + at.apply("now")
        + ")";
  }

  String claimProbe() {
    return claimProbe;
  }

  String failedProbe() {
    return failedProbe;
  }

  String delete() {
    return delete;
  }

  String deleteStale() {
    return deleteStale;
  }

  static Params insertParams(DestinationHealth row) {
    return Params.of()
        .text("key", DestinationHealth.key(row.destination()))
        .text("destination", row.destination())
        .text("state", row.state().name())
        .text("code", ErrorText.requiredCode(row.errorCode()))
        .text("reason", ErrorText.reason(row.errorReason()))
        .timestamp("now", row.downSince())
        .timestamp("next", row.nextProbeAt());
  }

  static Params key(String destination) {
    return Params.of().text("key", DestinationHealth.key(destination));
  }

  static Params claimParams(String destination, Instant now, Instant next) {
    return key(destination).timestamp("now", now).timestamp("next", next);
  }

  static Params failedProbeParams(
      String destination, DestinationState state, String code, String reason, Instant now) {
    return key(destination)
        .text("state", state.name())
        .text("code", ErrorText.requiredCode(code))
        .text("reason", ErrorText.reason(reason))
        .timestamp("now", now);
  }

  static DestinationHealth read(Row row) {
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
