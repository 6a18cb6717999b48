package dev.lambdaoutbox.store;

import java.util.List;

/** Per outcome given to {@link OutboxStore#complete}, in the same order, what was really done. */
public record CompletionReport(List<Completion> completions) {
  private static final CompletionReport EMPTY = new CompletionReport(List.of());

  public CompletionReport {
    completions = List.copyOf(completions);
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
