package dev.lambdaoutbox.bench;

import java.util.Locale;

/** p50, p95, p99 and the maximum of sorted values (nearest rank), e.g. milliseconds. */
record Percentiles(int count, double p50, double p95, double p99, double max) {
  static Percentiles of(double[] sorted) {
    if (sorted.length == 0) {
      return new Percentiles(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    return new Percentiles(
        sorted.length,
        rank(sorted, 50),
        rank(sorted, 95),
        rank(sorted, 99),
        sorted[sorted.length - 1]);
  }

  /** Nearest-rank percentile of sorted values. */
  static double rank(double[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /** "12 / 40 / 95 / 210" (p50 / p95 / p99 / max). */
  String brief() {
    return String.format(Locale.ROOT, "%s / %s / %s / %s", ms(p50), ms(p95), ms(p99), ms(max));
  }

  private static String ms(double v) {
    return Double.isNaN(v)
        ? "-"
        : v < 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%,.0f", v);
  }
}
