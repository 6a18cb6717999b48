package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;

/**
 * The destination health table's statements, shared by every poller ({@link
 * dev.lambdaoutbox.store.DestinationHealthStore}) and read by the reprocessor's waiting-row
 * listing. Each method runs in the caller's transaction on {@code s}; none commits.
 */
public interface DestinationHealthSql {
  /** Every destination marked down. */
  List<DestinationHealth> destinationHealth(SqlSession s);

  /** The row of {@code destination}, or null; with {@code lock}, locked until the end. */
  DestinationHealth destinationHealth(SqlSession s, String destination, boolean lock);

  /** Inserts {@code row} unless its destination has one; returns whether it went in. */
  boolean insertDestinationHealth(SqlSession s, DestinationHealth row);

  /**
   * Moves the destination's {@code next_probe_at} to {@code next} if it is due at {@code now};
   * returns whether it did.
   */
  boolean claimProbe(SqlSession s, String destination, Instant now, Instant next);

  /** One more failed probe, with its state and error; returns whether the row was there. */
  boolean recordFailedProbe(
      SqlSession s,
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now);

  /** Deletes the destination's row; returns whether there was one. */
  boolean deleteDestinationHealth(SqlSession s, String destination);

  /** Deletes the rows whose next probe is before {@code staleBefore}; returns how many. */
  int deleteStaleDestinationHealth(SqlSession s, Instant staleBefore);
}
