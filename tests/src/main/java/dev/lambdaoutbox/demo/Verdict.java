package dev.lambdaoutbox.demo;

import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * The end of the story, counted from both ends: the events the application committed, and the
 * events the shop applied.
 *
 * @param committed events whose transaction committed
 * @param delivered committed events the shop applied
 * @param lost committed events the shop never applied
 * @param duplicatesAbsorbed copies handed to the shop that its inbox recognised and skipped
 * @param phantom events the shop applied that were never committed (a rolled-back one, say)
 * @param appliedTwice events the shop's business logic ran for more than once
 */
record Verdict(
    int committed,
    int delivered,
    int lost,
    long duplicatesAbsorbed,
    int phantom,
    int appliedTwice) {

  /**
   * @param committed ids of the committed events
   * @param applied ids of the events in the shop's business table
   * @param applications how often the shop's business logic ran
   * @param absorbed copies the inbox skipped
   */
  static Verdict of(
      Collection<UUID> committed, Collection<UUID> applied, long applications, long absorbed) {
    Set<UUID> expected = new HashSet<>(committed);
    Set<UUID> got = new HashSet<>(applied);
    int delivered = (int) got.stream().filter(expected::contains).count();
    return new Verdict(
        expected.size(),
        delivered,
        expected.size() - delivered,
        absorbed,
        got.size() - delivered,
        (int) (applications - got.size()));
  }

  /** Every committed event delivered once, nothing else. */
  boolean clean() {
    return committed > 0
        && delivered == committed
        && lost == 0
        && phantom == 0
        && appliedTwice == 0;
  }

  /** "N committed, N delivered, 0 lost, k duplicates absorbed, 0 phantom". */
  String line() {
    return String.format(
        Locale.ROOT,
        "%,d committed, %,d delivered, %,d lost, %,d duplicates absorbed, %,d phantom%s",
        committed,
        delivered,
        lost,
        duplicatesAbsorbed,
        phantom,
        appliedTwice == 0 ? "" : String.format(Locale.ROOT, ", %,d applied twice", appliedTwice));
  }
}
