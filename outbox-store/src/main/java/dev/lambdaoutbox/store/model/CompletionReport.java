package dev.lambdaoutbox.store.model;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Per outcome given to {@link OutboxStore#complete}, in the same order, what was really done; and
 * the older dead letters that the dead letters it wrote replaced (an event id the application
 * reused), each kept whole in the audit table.
 *
 * @param parked with {@link Ordering#AGGREGATE}: per row dead-lettered as the head of its
 *     aggregate, how many events behind it that parked (a parked key with nothing behind it yet has
 *     0); empty otherwise
 */
public record CompletionReport(
    List<Completion> completions,
    List<SupersededDeadLetter> superseded,
    Map<UUID, Integer> parked) {
  private static final CompletionReport EMPTY = new CompletionReport(List.of());

  public CompletionReport {
    completions = List.copyOf(completions);
    superseded = List.copyOf(superseded);
    parked = Map.copyOf(parked);
  }

  /** A report that no dead letter was superseded in and no key parked in. */
  public CompletionReport(List<Completion> completions) {
    this(completions, List.of(), Map.of());
  }

  public static CompletionReport empty() {
    return EMPTY;
  }

  /** How many outcomes ended as {@code result}. */
  public int count(Completion.Result result) {
    int n = 0;
    for (Completion c : completions) {
      if (c.result() == result) {
        n++;
      }
    }
    return n;
  }
}
