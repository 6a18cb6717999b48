package dev.lambdaoutbox.telemetry;

import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes CloudWatch Embedded Metric Format: one JSON line per {@link Batch#emit()}, which
 * CloudWatch Logs turns into metrics under {@code namespace} with the single dimension {@code
 * Service}. No CloudWatch API call is made, so emitting costs nothing at run time and cannot fail
 * the invocation.
 *
 * <p>A metric may carry many values ({@link Batch#values}), over which CloudWatch computes
 * percentiles. EMF takes at most {@link #MAX_VALUES_PER_LINE} values of a metric per line, so a
 * batch with more writes them all, in as many lines as it takes: the first line carries every
 * metric and property, each further one the rest of the values with the same dimension and
 * properties.
 */
public final class EmfMetrics {
  /** The most values of one metric an EMF line may carry. */
  public static final int MAX_VALUES_PER_LINE = 100;

  private final String namespace;
  private final String service;
  private final PrintStream out;
  private final Clock clock;

  public EmfMetrics(String namespace, String service, PrintStream out, Clock clock) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.service = Objects.requireNonNull(service, "service");
    this.out = Objects.requireNonNull(out, "out");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Metrics to standard output with the system clock. */
  public static EmfMetrics toStdout(String namespace, String service) {
    return new EmfMetrics(namespace, service, System.out, Clock.systemUTC());
  }

  public Batch batch() {
    return new Batch();
  }

  /** The metrics and properties of one line. */
  public final class Batch {
    private final Map<String, Number> values = new LinkedHashMap<>();
    private final Map<String, long[]> series = new LinkedHashMap<>();
    private final Map<String, MetricUnit> units = new LinkedHashMap<>();
    private final Map<String, Object> properties = new LinkedHashMap<>();

    private Batch() {}

    public Batch metric(String name, Number value, MetricUnit unit) {
      series.remove(name);
      values.put(name, value);
      units.put(name, unit);
      return this;
    }

    /**
     * A metric with one value per thing measured (e.g. each message's latency), for percentiles;
     * none at all leaves the metric out, so that no value is reported where nothing was measured.
     * The values are copied.
     */
    public Batch values(String name, long[] measured, MetricUnit unit) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(unit, "unit");
      values.remove(name);
      if (measured.length == 0) {
        series.remove(name);
        units.remove(name);
      } else {
        series.put(name, measured.clone());
        units.put(name, unit);
      }
      return this;
    }

    public Batch count(String name, long value) {
      return metric(name, value, MetricUnit.COUNT);
    }

    /** A searchable log field that is not a metric, e.g. the request id. */
    public Batch property(String name, Object value) {
      properties.put(name, value);
      return this;
    }

    /** Writes the line, and the lines that carry the values one line cannot ({@link #lines}). */
    public void emit() {
      for (String line : lines()) {
        out.println(line);
      }
    }

    /** The first EMF JSON line: every metric, each multi-valued one with its first values. */
    public String render() {
      return lines().get(0);
    }

    /**
     * The EMF JSON lines: the first with every metric and property, then, while a multi-valued
     * metric has values left, a line with the next {@link #MAX_VALUES_PER_LINE} of each such
     * metric.
     */
    public List<String> lines() {
      long timestamp = clock.millis();
      List<String> lines = new ArrayList<>();
      Map<String, Object> first = new LinkedHashMap<>();
      int longest = 0;
      for (String name : units.keySet()) {
        long[] all = series.get(name);
        if (all == null) {
          first.put(name, values.get(name));
        } else {
          first.put(name, slice(all, 0));
          longest = Math.max(longest, all.length);
        }
      }
      lines.add(line(timestamp, units.keySet(), first));
      for (int from = MAX_VALUES_PER_LINE; from < longest; from += MAX_VALUES_PER_LINE) {
        Map<String, Object> more = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> s : series.entrySet()) {
          if (s.getValue().length > from) {
            more.put(s.getKey(), slice(s.getValue(), from));
          }
        }
        lines.add(line(timestamp, more.keySet(), more));
      }
      return lines;
    }

    /** Up to {@link #MAX_VALUES_PER_LINE} values from {@code from}, as a JSON array. */
    private static List<Long> slice(long[] all, int from) {
      int to = Math.min(all.length, from + MAX_VALUES_PER_LINE);
      List<Long> slice = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        slice.add(all[i]);
      }
      return slice;
    }

    private String line(long timestamp, Iterable<String> names, Map<String, Object> metricValues) {
      List<Map<String, String>> metrics = new ArrayList<>();
      for (String name : names) {
        Map<String, String> metric = new LinkedHashMap<>();
        metric.put("Name", name);
        metric.put("Unit", units.get(name).cloudWatchName());
        metrics.add(metric);
      }
      Map<String, Object> directive = new LinkedHashMap<>();
      directive.put("Namespace", namespace);
      directive.put("Dimensions", List.of(List.of("Service")));
      directive.put("Metrics", metrics);
      Map<String, Object> aws = new LinkedHashMap<>();
      aws.put("Timestamp", timestamp);
      aws.put("CloudWatchMetrics", List.of(directive));
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("_aws", aws);
      root.put("Service", service);
      root.putAll(properties);
      root.putAll(metricValues);
      return JsonWriter.write(root);
    }
  }
}
