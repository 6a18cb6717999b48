package dev.lambdaoutbox.poller.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Matches every entry of a batch with the broker's answer. A batch call can return HTTP 200 and
 * still have failed some entries, so each entry is looked up by id: in {@code successful()} it was
 * sent; in {@code failed()} it failed with the broker's code; in neither, it counts as a transient
 * failure ({@link Codes#MISSING_FROM_RESPONSE}), never as sent.
 */
public final class BatchReconciler {
  private BatchReconciler() {}

  public static List<Delivery> reconcile(List<OutboundMessage> batch, BatchResponse response) {
    List<Delivery> deliveries = new ArrayList<>(batch.size());
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
      } else {
        deliveries.add(
            new Delivery.Failed(
                m.id(),
                Failure.transientFailure(
                    Codes.MISSING_FROM_RESPONSE,
                    "the batch response listed the entry neither as successful nor as failed")));
      }
    }
    return deliveries;
  }

  /** Every entry failed the same way (the call as a whole failed). */
  public static List<Delivery> allFailed(List<OutboundMessage> batch, Failure failure) {
    return batch.stream().<Delivery>map(m -> new Delivery.Failed(m.id(), failure)).toList();
  }
}
