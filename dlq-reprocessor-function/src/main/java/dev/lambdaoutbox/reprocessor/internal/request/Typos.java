package dev.lambdaoutbox.reprocessor.internal.request;

import java.util.Collection;
import java.util.Locale;

/** Finds the name an operator probably meant when a field name is misspelt. */
final class Typos {
  private static final int MAX_EDITS = 2;

  private Typos() {}

  /** The candidate within two edits of {@code name}, ignoring case (the nearest); null if none. */
  static String closest(String name, Collection<String> candidates) {
    String best = null;
    int bestDistance = MAX_EDITS + 1;
    String wanted = name.toLowerCase(Locale.ROOT);
    for (String candidate : candidates) {
      int d = distance(wanted, candidate.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] swap = prev;
      prev = cur;
      cur = swap;
    }
    return prev[b.length()];
  }
}
