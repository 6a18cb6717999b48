package dev.lambdaoutbox.store.config;

import java.util.List;

/**
 * The settings both functions read beside the database's, declared once: the ordering the rows
 * keep, the logs and the metrics, and the AWS SDK's own endpoint overrides. A function that needs
 * another default (its service name) takes its own copy with {@link Setting#withDefault}.
 */
public final class SharedVariables {
  public static final Setting ORDERING =
      Setting.choice(
              "OUTBOX_ORDERING",
              "none",
              List.of("none", "aggregate"),
              "is not an ordering; use none (the default) or aggregate (each aggregate's events"
                  + " one at a time, in order)")
          .ignoringCase()
          .parameter("Ordering")
          .meaning(
              "`aggregate`: each aggregate's events one at a time, in the order written; a"
                  + " dead-lettered event parks its aggregate ([ordering.md](ordering.md))");

  public static final Setting LOG_LEVEL =
      Setting.choice(
              "OUTBOX_LOG_LEVEL",
              "INFO",
              List.of("DEBUG", "INFO", "WARN", "ERROR"),
              "is not a log level; use DEBUG, INFO, WARN or ERROR")
          .ignoringCase()
          .meaning("the least severe log line written");

  public static final Setting METRICS_NAMESPACE =
      Setting.text(
              "OUTBOX_METRICS_NAMESPACE",
              "LambdaOutbox",
              "a CloudWatch namespace, not starting with `AWS/`")
          .parameter("MetricsNamespace")
          .meaning(
              "namespace of the functions' EMF metrics; their `Service` dimension is"
                  + " `<stack>-poller` and `<stack>-dlq-reprocessor` (`OUTBOX_SERVICE_NAME`), so"
                  + " two stacks never read each other's metrics");

  /** Without a default: each function declares its own ({@link Setting#withDefault}). */
  public static final Setting SERVICE_NAME =
      Setting.text("OUTBOX_SERVICE_NAME", null, "a name")
          .meaning(
              "the metrics' `Service` dimension and the logs' `service`; the stack sets"
                  + " `<stack>-poller` and `<stack>-dlq-reprocessor`");

  public static final Setting AWS_ENDPOINT_URL =
      Setting.text("AWS_ENDPOINT_URL", null, "a URL")
          .meaning(
              "the AWS SDK's standard endpoint override for every service (the test bed sets"
                  + " it); read by the SDK, not by the functions' configuration");

  public static final Setting AWS_ENDPOINT_URL_RDS_DATA =
      Setting.text("AWS_ENDPOINT_URL_RDS_DATA", null, "a URL")
          .meaning(
              "`data-api`: the AWS SDK's endpoint override for the Data API alone (the test bed"
                  + " sets it)");

  private SharedVariables() {}

  /** Every shared variable, in the order the reference lists them. */
  public static List<Setting> all() {
    return List.of(
        ORDERING,
        METRICS_NAMESPACE,
        LOG_LEVEL,
        SERVICE_NAME,
        AWS_ENDPOINT_URL,
        AWS_ENDPOINT_URL_RDS_DATA);
  }
}
