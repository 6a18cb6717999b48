package dev.lambdaoutbox.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's steps as they run: a heading when one starts, indented lines while it works, and what
 * it counted with its time when it ends; at the end, the table of every step.
 */
final class Steps {
  /** What a step reports when it ends: how many of what. */
  record Count(long value, String unit) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%,d %s", value, unit);
    }
  }

  /** One step of the story. */
  @FunctionalInterface
  interface Body {
    Count run() throws Exception;
  }

  private record Done(int number, String title, Count count, Duration time) {}

  private final PrintStream out;
  private final int total;
  private final List<Done> done = new ArrayList<>();
  private final long started = System.nanoTime();

  Steps(PrintStream out, int total) {
    this.out = out;
    this.total = total;
  }

  /** Runs a step, printing its heading and its result; an exception ends the demo. */
  Count run(String title, Body body) throws Exception {
    int number = done.size() + 1;
    out.printf(Locale.ROOT, "%n[%2d/%d] %s%n", number, total, title);
    long start = System.nanoTime();
    Count count = body.run();
    Duration time = Duration.ofNanos(System.nanoTime() - start);
    done.add(new Done(number, title, count, time));
    out.printf(Locale.ROOT, "        -> %s in %s%n", count, seconds(time));
    return count;
  }

  /** A line of detail under the current step. */
  void detail(String format, Object... args) {
    out.printf(Locale.ROOT, "        " + format + "%n", args);
  }

  /** Time since the demo started. */
  Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - started);
  }

  /** The table of every step run, with the total time. */
  void printTable() {
    int width = done.stream().mapToInt(d -> d.title().length()).max().orElse(10);
    width = Math.min(Math.max(width, 10), 72);
    String row = "%3s  %-" + width + "s  %22s  %8s%n";
    out.printf(Locale.ROOT, "%n" + row, "#", "step", "count", "time");
    out.println("-".repeat(3 + 2 + width + 2 + 22 + 2 + 8));
    for (Done d : done) {
      String title = d.title().length() > width ? d.title().substring(0, width) : d.title();
      out.printf(Locale.ROOT, row, d.number(), title, d.count(), seconds(d.time()));
    }
    out.println("-".repeat(3 + 2 + width + 2 + 22 + 2 + 8));
    out.printf(Locale.ROOT, row, "", "total", "", seconds(elapsed()));
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
