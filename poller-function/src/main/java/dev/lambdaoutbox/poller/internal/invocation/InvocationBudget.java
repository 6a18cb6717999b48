package dev.lambdaoutbox.poller.internal.invocation;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The time one invocation may still use, from the Lambda context's remaining time. A safety margin
 * is always kept for recording outcomes and writing metrics, and nothing is started that could not
 * end before it: no claim, batch call or poll-interval sleep unless one whole publish call (its
 * timeout) still fits, and no call once it could outlast the lease on the rows it sends.
 */
public final class InvocationBudget {
  private final LongSupplier remainingMillis;
  private final long marginMillis;
  private final long callMillis;
  private final long leaseMillis;

  /**
   * @param remainingMillis the invocation's remaining time, e.g. {@code
   *     context::getRemainingTimeInMillis}
   * @param publishTimeout the longest one batch call takes
   */
  public InvocationBudget(
      LongSupplier remainingMillis,
      Duration safetyMargin,
      Duration publishTimeout,
      Duration lease) {
    this.remainingMillis = remainingMillis;
    this.marginMillis = safetyMargin.toMillis();
    this.callMillis = publishTimeout.toMillis();
    this.leaseMillis = lease.toMillis();
  }

  public long remainingMillis() {
    return remainingMillis.getAsLong();
  }

  /** Whether a batch may be claimed now. */
  public boolean mayClaim() {
    return remainingMillis() - marginMillis >= callMillis;
  }

  /**
   * Whether the next batch may be claimed now, while the one in hand is still to be published:
   * whole publish calls for both, one after the other, still fit before the safety margin.
   */
  public boolean mayClaimAhead() {
    return remainingMillis() - marginMillis >= 2 * callMillis;
  }

  /**
   * Whether a batch call may start now for rows claimed when {@code remainingAtClaim} ms were left.
   */
  public boolean mayStartCall(long remainingAtClaim) {
    return waitAllowanceMillis(remainingAtClaim) >= 0;
  }

  /**
   * How long a batch call for rows claimed when {@code remainingAtClaim} ms were left may still
   * wait before it starts (for its destination's send rate) and then run whole before the safety
   * margin and the lease's end; negative when it may not start even now.
   */
  public long waitAllowanceMillis(long remainingAtClaim) {
    long now = remainingMillis();
    long sinceClaim = remainingAtClaim - now;
    return Math.min(
        now - marginMillis - callMillis, leaseMillis - sinceClaim - callMillis - marginMillis);
  }

  /**
   * Whether a claim-check upload may start now for rows claimed when {@code remainingAtClaim} ms
   * were left: the upload and the publish call after it, each up to a call's timeout, still fit
   * before the safety margin and before the lease on the rows ends.
   */
  public boolean mayStartUpload(long remainingAtClaim) {
    long now = remainingMillis();
    long sinceClaim = remainingAtClaim - now;
    return now - marginMillis >= 2 * callMillis
        && sinceClaim + 2 * callMillis + marginMillis <= leaseMillis;
  }

  /** How much longer claims may start: until one whole publish call no longer fits. */
  public Duration claimingTime() {
    return Duration.ofMillis(Math.max(0, remainingMillis() - marginMillis - callMillis));
  }

  /** Whether the poller may wait {@code interval} and still claim afterwards. */
  public boolean maySleep(Duration interval) {
    return remainingMillis() - interval.toMillis() - marginMillis >= callMillis;
  }
}
