package dev.lambdaoutbox.store;

import java.util.List;

/**
 * Per outcome given to {@link OutboxStore#complete}, in the same order, what was really done; and
 * the older dead letters that the dead letters it wrote replaced (an event id the application
 * reused), each kept whole in the audit table.
 */
public record CompletionReport(
    List<Completion> completions, List<SupersededDeadLetter> superseded) {
  private static final CompletionReport EMPTY = new CompletionReport(List.of());

  public CompletionReport {
    completions = List.copyOf(completions);
    superseded = List.copyOf(superseded);
  }

  /** A report that no dead letter was superseded in. */
  public CompletionReport(List<Completion> completions) {
    this(completions, List.of());
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
