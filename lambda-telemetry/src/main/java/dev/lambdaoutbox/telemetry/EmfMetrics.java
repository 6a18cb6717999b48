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
 */
public final class EmfMetrics {
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
    private final Map<String, MetricUnit> units = new LinkedHashMap<>();
    private final Map<String, Object> properties = new LinkedHashMap<>();

    private Batch() {}

    public Batch metric(String name, Number value, MetricUnit unit) {
      values.put(name, value);
      units.put(name, unit);
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

    /** Writes the line. */
    public void emit() {
      out.println(render());
    }

    /** The EMF JSON line. */
    public String render() {
      List<Map<String, String>> metrics = new ArrayList<>(units.size());
      for (Map.Entry<String, MetricUnit> unit : units.entrySet()) {
        Map<String, String> metric = new LinkedHashMap<>();
        metric.put("Name", unit.getKey());
        metric.put("Unit", unit.getValue().cloudWatchName());
        metrics.add(metric);
      }
      Map<String, Object> directive = new LinkedHashMap<>();
      directive.put("Namespace", namespace);
      directive.put("Dimensions", List.of(List.of("Service")));
      directive.put("Metrics", metrics);
      Map<String, Object> aws = new LinkedHashMap<>();
      aws.put("Timestamp", clock.millis());
      aws.put("CloudWatchMetrics", List.of(directive));
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("_aws", aws);
      root.put("Service", service);
      root.putAll(properties);
      root.putAll(values);
      return JsonWriter.write(root);
    }
  }
}
