package dev.lambdaoutbox.store;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.dialect.DestinationHealthSql;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** The {@link DestinationHealthStore} of a {@link SqlOutboxStore}: same executor, same dialect. */
final class SqlDestinationHealthStore implements DestinationHealthStore {
  private final SqlExecutor executor;
  private final DestinationHealthSql dialect;
  private final String table;

  SqlDestinationHealthStore(
      SqlExecutor executor, DestinationHealthSql dialect, OutboxTables tables) {
    this.executor = executor;
    this.dialect = dialect;
    this.table = tables.destinationHealth();
  }

  @Override
  public Map<String, DestinationHealth> all() {
    return executor.inTransaction(
        "read " + table,
        s -> {
          Map<String, DestinationHealth> byDestination = new LinkedHashMap<>();
          for (DestinationHealth h : dialect.destinationHealth(s)) {
            byDestination.put(h.destination(), h);
          }
          return byDestination;
        });
  }

  @Override
  public MarkedDown markDown(
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now,
      Instant firstProbeAt) {
    requireDestination(destination);
    Objects.requireNonNull(state, "state");
    Instant at = micros(now);
    DestinationHealth row =
        new DestinationHealth(
            destination, state, errorCode, reason, at, 0, micros(firstProbeAt), at);
    return executor.inTransaction(
        "mark " + destination + " down in " + table,
        s -> {
          boolean inserted = dialect.insertDestinationHealth(s, row);
          DestinationHealth current = dialect.destinationHealth(s, destination, false);
          // Deleted again between the two statements by a probe that went through: it is up.
          return new MarkedDown(current == null ? row : current, inserted);
        });
  }

  @Override
  public boolean claimProbe(String destination, Instant now, Instant nextProbeAt) {
    requireDestination(destination);
    return executor.inTransaction(
        "claim the probe of " + destination + " in " + table,
        s -> dialect.claimProbe(s, destination, micros(now), micros(nextProbeAt)));
  }

  @Override
  public Optional<ProbeFailed> probeFailed(
      String destination, DestinationState state, String errorCode, String reason, Instant now) {
    requireDestination(destination);
    Objects.requireNonNull(state, "state");
    return executor.inTransaction(
        "record a failed probe of " + destination + " in " + table,
        s -> {
          DestinationHealth before = dialect.destinationHealth(s, destination, true);
          if (before == null) {
            return Optional.empty();
          }
          dialect.recordFailedProbe(s, destination, state, errorCode, reason, micros(now));
          return Optional.of(
              new ProbeFailed(before, dialect.destinationHealth(s, destination, false)));
        });
  }

  @Override
  public boolean markHealthy(String destination) {
    requireDestination(destination);
    return executor.inTransaction(
        "mark " + destination + " healthy in " + table,
        s -> dialect.deleteDestinationHealth(s, destination));
  }

  @Override
  public int forgetStale(Instant now) {
    Instant staleBefore = micros(now).minus(STALE_AFTER);
    return executor.inTransaction(
        "forget stale rows of " + table, s -> dialect.deleteStaleDestinationHealth(s, staleBefore));
  }

  private static void requireDestination(String destination) {
    if (destination == null || destination.isBlank()) {
      throw new IllegalArgumentException("destination: must not be blank");
    }
  }

  private static Instant micros(Instant instant) {
    return Objects.requireNonNull(instant, "now").truncatedTo(ChronoUnit.MICROS);
  }
}
