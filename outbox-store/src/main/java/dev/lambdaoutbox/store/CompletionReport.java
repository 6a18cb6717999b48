package dev.lambdaoutbox.store;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Per outcome given to {@link OutboxStore#complete}, in the same order, what was really done.
 *
 * @param parked with {@link Ordering#AGGREGATE}: per row dead-lettered as the head of its
 *     aggregate, how many events behind it that parked (a parked key with nothing behind it yet has
 *     0); empty otherwise
 */
public record CompletionReport(List<Completion> completions, Map<UUID, Integer> parked) {
  private static final CompletionReport EMPTY = new CompletionReport(List.of(), Map.of());

  public CompletionReport {
    completions = List.copyOf(completions);
    parked = Map.copyOf(parked);
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
