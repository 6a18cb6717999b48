package dev.lambdaoutbox.store.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A destination found down, as every poller sees it (one row of {@code outbox_destination_health}).
 *
 * @param destination the SNS topic ARN or SQS queue URL
 * @param errorCode the failure that marked it down, or of the last probe
 * @param downSince when it was first found down
 * @param failedProbes consecutive probes that failed since
 * @param nextProbeAt when it may be probed again; rows routed to it wait until then
 */
public record DestinationHealth(
    String destination,
    DestinationState state,
    String errorCode,
    String errorReason,
    Instant downSince,
    int failedProbes,
    Instant nextProbeAt,
    Instant updatedAt) {

  public DestinationHealth {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(downSince, "downSince");
    Objects.requireNonNull(nextProbeAt, "nextProbeAt");
  }

  /** Whether a probe may be sent at {@code now}. */
  public boolean probeDue(Instant now) {
    return !nextProbeAt.isAfter(now);
  }

  /**
   * The table's key for {@code destination}: its SHA-256 in lower-case hex (a varchar(2048) cannot
   * be a MySQL primary key).
   */
  public static String key(String destination) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(destination.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
