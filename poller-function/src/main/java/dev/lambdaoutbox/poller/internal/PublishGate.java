package dev.lambdaoutbox.poller.internal;

/**
 * Asked before every batch call: whether the poller still wants calls to start. It says no once the
 * broker was found unreachable or time runs short; the messages not sent then keep their lease and
 * retry count.
 */
public interface PublishGate {
  /** Null when a batch call may start now; otherwise why not, for the logs. */
  String refusal();

  /** A batch showed the broker unreachable or failing as a whole: start no further calls. */
  void brokerDown(Failure failure);

  /** A gate that always allows calls, for tools and tests that publish outside an invocation. */
  static PublishGate open() {
    return new PublishGate() {
      @Override
      public String refusal() {
        return null;
      }

      @Override
      public void brokerDown(Failure failure) {
        // Nothing to stop: a caller without an invocation to protect reads the failures instead.
      }
    };
  }
}
