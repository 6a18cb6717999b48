package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.poller.internal.failure.Failure;
import java.util.List;

/**
 * Asked before every batch call: whether the poller still wants it to start. It says no once time
 * runs short, or once the call's destination was found down in this round; the messages not sent
 * then become {@link Delivery.NotAttempted}. It then holds the call until its destination's send
 * rate lets it start ({@link #pace}), and hears what each call came back with ({@link #answered}).
 */
public interface PublishGate {
  /** Null when a batch call to {@code destination} may start now; otherwise why not. */
  Delivery.Refusal refusal(String destination);

  /**
   * Null when a claim-check upload may start now, with time left for it and for the publish call
   * after it; otherwise why not.
   */
  Delivery.Refusal uploadRefusal();

  /**
   * A call to {@code destination} showed it down ({@link Failure#destinationDown()}): start no
   * further calls to it.
   */
  void destinationDown(String destination, Failure failure);

  /**
   * Waits until a call of {@code messages} to {@code destination} may start at the destination's
   * send rate: null once it may start, a refusal when the wait would outlast the time left (the
   * call is then not made).
   */
  default Delivery.Refusal pace(String destination, int messages) {
    return null;
  }

  /** A call to {@code destination} came back, each message of it as {@code deliveries} says. */
  default void answered(String destination, List<Delivery> deliveries) {}

  /** A gate that always allows calls, for tools and tests that publish outside an invocation. */
  static PublishGate open() {
    return new PublishGate() {
      @Override
      public Delivery.Refusal refusal(String destination) {
        return null;
      }

      @Override
      public Delivery.Refusal uploadRefusal() {
        return null;
      }

      @Override
      public void destinationDown(String destination, Failure failure) {
        // Nothing to stop: a caller without an invocation to protect reads the failures instead.
      }
    };
  }
}
