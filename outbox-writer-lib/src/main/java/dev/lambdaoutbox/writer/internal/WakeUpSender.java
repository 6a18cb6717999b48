package dev.lambdaoutbox.writer.internal;

/** Sends one wake-up to the poller function; how, is the implementation's business. */
public interface WakeUpSender extends AutoCloseable {
  /**
   * Sends one wake-up, waiting for the answer.
   *
   * @throws WakeUpFailedException when it was not accepted, saying why and what to do
   */
  void send();

  /** Releases what the sender built; nothing it was given. */
  @Override
  void close();
}
