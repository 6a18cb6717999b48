package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link PublishGate} of one round: no call once too little time is left for it (before the
 * invocation's timeout, or the end of the lease on the rows it sends), no claim-check upload once
 * it and the publish after it would not fit, no further call to a destination a call of this round
 * showed down, and each call held until its destination's send rate lets it start, if that is soon
 * enough ({@link Pacing}). Thread-safe: batch calls run in parallel.
 */
final class RoundGate implements PublishGate {
  private final InvocationBudget budget;
  private final long remainingAtClaim;
  private final Pacing pacing;
  private final Map<String, Failure> down = new ConcurrentHashMap<>();

  /**
   * @param remainingAtClaim the invocation's remaining time when the round's rows were claimed
   */
  RoundGate(InvocationBudget budget, long remainingAtClaim, Pacing pacing) {
    this.budget = budget;
    this.remainingAtClaim = remainingAtClaim;
    this.pacing = pacing;
  }

  @Override
  public Delivery.Refusal refusal(String destination) {
    Failure failure = down.get(destination);
    if (failure != null) {
      return new Delivery.Refusal(
          Delivery.Why.DESTINATION_DOWN,
          "not sent: the destination failed earlier in this round (" + failure.code() + ")");
    }
    if (!budget.mayStartCall(remainingAtClaim)) {
      return new Delivery.Refusal(
          Delivery.Why.TIME_SHORT,
          "not sent: too little time left before the timeout or the lease ends");
    }
    return null;
  }

  @Override
  public Delivery.Refusal pace(String destination, int messages) {
    return pacing.pace(destination, messages, budget.waitAllowanceMillis(remainingAtClaim));
  }

  @Override
  public void answered(String destination, List<Delivery> deliveries) {
    pacing.answered(destination, deliveries);
  }

  @Override
  public Delivery.Refusal uploadRefusal() {
    if (!budget.mayStartUpload(remainingAtClaim)) {
      return new Delivery.Refusal(
          Delivery.Why.TIME_SHORT,
          "not stored: too little time left to store the payload in S3 and publish it before the"
              + " timeout or the lease ends");
    }
    return null;
  }

  @Override
  public void destinationDown(String destination, Failure failure) {
    down.putIfAbsent(destination, failure);
  }
}
