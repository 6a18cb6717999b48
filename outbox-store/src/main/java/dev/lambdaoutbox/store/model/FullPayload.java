package dev.lambdaoutbox.store.model;

/**
 * One outbox row's whole payload, read past the cut a claim makes ({@link
 * OutboxStore#fullPayload}): the text, or why there is none to give.
 */
public sealed interface FullPayload {
  /** The payload, every character of it. */
  record Whole(String text) implements FullPayload {}

  /**
   * The payload holds more UTF-8 bytes than the reader's memory budget allows; nothing was read
   * past its size.
   */
  record OverBudget(long bytes, long maxBytes) implements FullPayload {}

  /** No PENDING row has that id (published, dead-lettered or replaced meanwhile). */
  record Gone() implements FullPayload {}
}
