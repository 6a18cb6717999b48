package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.template.TemplateFacts;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The generated cost-by-mode table of docs/PERFORMANCE.md: the poller's Lambda cost a month for 1M
 * and 100M events under the schedule alone, {@code PollIntervalMs} and wake-ups, computed from
 * {@code ModeLatencyBenchmark}'s measured invocations and run time per second (stated once, here),
 * the template's defaults and {@link Prices}.
 */
final class ModeCosts {
  /** The benchmark's shortened schedule: it started a run every this many seconds. */
  private static final double BENCH_PERIOD_SECONDS = 10;

  private static final double SECONDS_A_MONTH = Prices.HOURS_A_MONTH * 3600.0;

  /** One measured cell: events/s, invocations/s and seconds of runs per second. */
  record Point(double rate, double invocationsPerSecond, double runSecondsPerSecond) {}

  /**
   * Measured by {@code ModeLatencyBenchmark} on 2026-11-27 (PostgreSQL, the 2-core machine shared
   * with other builds, broker stand-in at 15-25 ms, two execution environments), per scheduled run
   * of its 10-second schedule divided by 10 s. The schedule mode at 0 events/s is the wake-up
   * mode's (no commit, no wake-up); the interval mode polls whatever the rate, so its 1 event/s
   * cell stands for less. The wake-up mode's cells at 1-100 events/s were measured on 2026-11-29
   * with the defaults a deployment runs (the waker's 5 s quiet period, one woken run lingering at a
   * time) and the commits dealt in turn to 10 application processes ({@code bench.wakers=10}), 60 s
   * a cell, load average 1-3: scheduled runs 0.1 a second plus the woken ones.
   */
  static final Map<String, List<Point>> MEASURED =
      Map.of(
          "schedule",
          List.of(
              new Point(0, 0.1, 0.005),
              new Point(1, 0.1, 0.004),
              new Point(10, 0.1, 0.017),
              new Point(100, 0.1, 0.142),
              new Point(1_000, 0.1, 0.617)),
          "interval",
          List.of(
              new Point(1, 0.1, 0.785),
              new Point(10, 0.1, 0.787),
              new Point(100, 0.1, 0.789),
              new Point(1_000, 0.1, 0.801)),
          "wake",
          List.of(
              new Point(0, 0.1, 0.005),
              new Point(1, 1.11, 1.228),
              new Point(10, 1.93, 1.332),
              new Point(100, 2.09, 1.421)));

  /**
   * Seconds of idle scheduled runs per second at the benchmark's schedule (the 0 events/s cell).
   */
  private static final double IDLE_RUN_SECONDS_PER_SECOND = 0.005;

  private ModeCosts() {}

  static String table() {
    String schedule = String.valueOf(TemplateFacts.parameter("ScheduleExpression").get("Default"));
    long scheduledRuns = DocSections.runsPerMonth(schedule);
    double gb =
        Integer.parseInt(
                String.valueOf(TemplateFacts.functionProperty("PollerFunction", "MemorySize"))
                    .replace(".0", ""))
            / 1024.0;
    StringBuilder md = new StringBuilder();
    md.append(
            String.format(
                Locale.ROOT,
                "The poller's Lambda bill a month (%s per million requests, %s per GB-second, %.0f"
                    + " MB, free tier left out), the schedule `%s` (%,d runs a month). Invocations"
                    + " and run time per second are `ModeLatencyBenchmark`'s, interpolated"
                    + " linearly between the measured rates, its shortened schedule's runs (every"
                    + " %.0f s) replaced by the real schedule's. The SNS/SQS requests (a tenth of"
                    + " the events, in batches of ten) are the same in every mode and left out.%n%n",
                DocSections.money(Prices.LAMBDA_PER_MILLION_REQUESTS),
                "$" + BigDecimal.valueOf(Prices.LAMBDA_PER_GB_SECOND).toPlainString(),
                gb * 1024,
                schedule,
                scheduledRuns,
                BENCH_PERIOD_SECONDS))
        .append(
            "| mode | events a month | invocations | invocations per event | GB-seconds | Lambda"
                + " a month |\n")
        .append("|---|---:|---:|---:|---:|---:|\n");
    for (String mode : List.of("schedule", "interval", "wake")) {
      for (long events : List.of(1_000_000L, 100_000_000L)) {
        double rate = events / SECONDS_A_MONTH;
        Point p = at(MEASURED.get(mode), rate);
        double extraInvocations =
            Math.max(0, p.invocationsPerSecond() - 1 / BENCH_PERIOD_SECONDS) * SECONDS_A_MONTH;
        double invocations = scheduledRuns + extraInvocations;
        // The benchmark's schedule ran idle runs more often than the real one does.
        double idleOverCount =
            mode.equals("interval")
                ? 0
                : IDLE_RUN_SECONDS_PER_SECOND
                    * (1 - scheduledRuns * BENCH_PERIOD_SECONDS / SECONDS_A_MONTH);
        double gbSeconds = (p.runSecondsPerSecond() - idleOverCount) * SECONDS_A_MONTH * gb;
        double dollars =
            invocations * Prices.LAMBDA_PER_MILLION_REQUESTS / 1e6
                + gbSeconds * Prices.LAMBDA_PER_GB_SECOND;
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %,.0f | %s | %,.0f | %s |%n",
                name(mode),
                events,
                invocations,
                perEvent(invocations / events),
                gbSeconds,
                DocSections.money(dollars)));
      }
    }
    return md.toString().strip();
  }

  /** Two significant digits: 0.044, 0.19, 1.5. */
  private static String perEvent(double ratio) {
    return new BigDecimal(ratio).round(new MathContext(2)).stripTrailingZeros().toPlainString();
  }

  private static String name(String mode) {
    return switch (mode) {
      case "schedule" -> "schedule alone (`PollIntervalMs` 0)";
      case "interval" -> "`PollIntervalMs` 100";
      default -> "wake-ups (`PollerWaker`) and the schedule";
    };
  }

  /** Linear between the measured points around {@code rate}; the nearest one outside them. */
  static Point at(List<Point> points, double rate) {
    if (rate <= points.get(0).rate()) {
      return points.get(0);
    }
    for (int i = 1; i < points.size(); i++) {
      Point a = points.get(i - 1);
      Point b = points.get(i);
      if (rate <= b.rate()) {
        double f = (rate - a.rate()) / (b.rate() - a.rate());
        return new Point(
            rate,
            a.invocationsPerSecond() + f * (b.invocationsPerSecond() - a.invocationsPerSecond()),
            a.runSecondsPerSecond() + f * (b.runSecondsPerSecond() - a.runSecondsPerSecond()));
      }
    }
    return points.get(points.size() - 1);
  }
}
