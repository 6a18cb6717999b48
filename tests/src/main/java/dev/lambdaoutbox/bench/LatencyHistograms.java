package dev.lambdaoutbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Writes {@link ModeLatencyBenchmark}'s commit-to-broker latency distributions as a Markdown page:
 * per mode and rate, the share of events in each latency band (bands double in width), drawn as a
 * bar of {@code #} in a table, so that the page renders anywhere Markdown does.
 */
final class LatencyHistograms {
  /** Upper bounds of the bands, in milliseconds; the last band is everything above. */
  private static final double[] BOUNDS = {
    25, 50, 100, 200, 400, 800, 1_600, 3_200, 6_400, 12_800, 25_600
  };

  private static final int BAR = 40;

  private LatencyHistograms() {}

  static void write(
      Path file, List<ModeLatencyBenchmark.Cell> cells, String database, Duration period)
      throws IOException {
    StringBuilder out = new StringBuilder();
    out.append("# Commit-to-broker latency distributions\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "Written by `ModeLatencyBenchmark` (see [PERFORMANCE.md](PERFORMANCE.md#commit-to-broker"
                    + "-latency-by-mode-modelatencybenchmark)): %s, the packaged poller on the"
                    + " Runtime API emulator, a broker answering in 15-25 ms, the schedule"
                    + " shortened to every %d s. Each row is a band of commit-to-broker latency;"
                    + " the bar and the percentage are the share of the events in it.%n",
                database,
                period.toSeconds()));
    for (ModeLatencyBenchmark.Cell c : cells) {
      if (c.sorted().length == 0) {
        continue;
      }
      out.append(
          String.format(
              Locale.ROOT,
              "%n## %s, %,.0f events/s (%,d events; p50 %.0f ms, p99 %.0f ms, max %.0f ms)%n%n"
                  + "| latency | share | |%n|---|---:|---|%n",
              c.mode(),
              c.rate(),
              c.sorted().length,
              c.latency().p50(),
              c.latency().p99(),
              c.latency().max()));
      int[] counts = new int[BOUNDS.length + 1];
      for (double v : c.sorted()) {
        int band = 0;
        while (band < BOUNDS.length && v > BOUNDS[band]) {
          band++;
        }
        counts[band]++;
      }
      int first = 0;
      while (counts[first] == 0) {
        first++;
      }
      int last = counts.length - 1;
      while (counts[last] == 0) {
        last--;
      }
      for (int band = first; band <= last; band++) {
        double share = counts[band] / (double) c.sorted().length;
        out.append(
            String.format(
                Locale.ROOT, "| %s | %.1f%% | %s |%n", label(band), share * 100, bar(share)));
      }
    }
    Files.writeString(file, out.toString());
  }

  /** A bar of {@code #} in a code span; nothing for a share too small to draw. */
  private static String bar(double share) {
    int length = (int) Math.round(share * BAR);
    return length == 0 ? "" : "`" + "#".repeat(length) + "`";
  }

  private static String label(int band) {
    if (band == 0) {
      return "<= " + ms(BOUNDS[0]);
    }
    if (band == BOUNDS.length) {
      return "> " + ms(BOUNDS[band - 1]);
    }
    return ms(BOUNDS[band - 1]) + " - " + ms(BOUNDS[band]);
  }

  private static String ms(double v) {
    return v >= 1000 ? String.format(Locale.ROOT, "%.1f s", v / 1000) : String.format("%.0f ms", v);
  }
}
