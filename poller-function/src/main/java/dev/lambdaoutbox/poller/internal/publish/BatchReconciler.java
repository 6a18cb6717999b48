package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.failure.FailureClassifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Matches every entry of a batch with the broker's answer. A batch call can return HTTP 200 and
 * still have failed some entries, so each entry is looked up by id: in {@code successful()} it was
 * sent; in {@code failed()} it failed with the broker's code; in neither, it counts as a transient
 * failure ({@link Codes#MISSING_FROM_RESPONSE}), never as sent.
 *
 * <p>When no entry went through, the failures that are not a message's own become the destination's
 * ({@link FailureClassifier#noneWentThrough}): a broker refusing or failing a whole batch entry by
 * entry is down, not ten messages at fault.
 */
public final class BatchReconciler {
  private BatchReconciler() {}

  public static List<Delivery> reconcile(List<OutboundMessage> batch, BatchResponse response) {
    List<Delivery> deliveries = new ArrayList<>(batch.size());
    boolean anySent = false;
    for (OutboundMessage m : batch) {
      String id = m.id().toString();
      BatchResponse.EntryError error = response.failed().get(id);
      if (error != null) {
        deliveries.add(
            new Delivery.Failed(
                m.id(),
                FailureClassifier.entry(error.code(), error.message(), error.senderFault())));
      } else if (response.successful().contains(id)) {
        deliveries.add(new Delivery.Sent(m.id()));
        anySent = true;
      } else {
        deliveries.add(
            new Delivery.Failed(
                m.id(),
                Failure.transientFailure(
                    Codes.MISSING_FROM_RESPONSE,
                    "the batch response listed the entry neither as successful nor as failed")));
      }
    }
    return anySent ? deliveries : noneWentThrough(deliveries);
  }

  /** Every entry failed the same way (the call as a whole failed). */
  public static List<Delivery> allFailed(List<OutboundMessage> batch, Failure failure) {
    return batch.stream().<Delivery>map(m -> new Delivery.Failed(m.id(), failure)).toList();
  }

  private static List<Delivery> noneWentThrough(List<Delivery> deliveries) {
    List<Failure> destinations = new ArrayList<>();
    for (Delivery d : deliveries) {
      if (d instanceof Delivery.Failed f && !FailureClassifier.isMessageLevel(f.failure().code())) {
        destinations.add(f.failure());
      }
    }
    if (destinations.isEmpty()) {
      return deliveries;
    }
    Failure.Scope scope = FailureClassifier.noneWentThrough(destinations);
    List<Delivery> judged = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      if (d instanceof Delivery.Failed f && !FailureClassifier.isMessageLevel(f.failure().code())) {
        Failure own = f.failure();
        judged.add(
            new Delivery.Failed(
                f.id(),
                new Failure(
                    own.code(),
                    own.reason() + " (no entry of the batch went through)",
                    scope,
                    scope == Failure.Scope.DESTINATION_MISCONFIGURED)));
      } else {
        judged.add(d);
      }
    }
    return judged;
  }
}
