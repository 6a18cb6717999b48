package dev.lambdaoutbox.telemetry;

import java.util.regex.Pattern;

/**
 * What CloudWatch takes as a metric namespace: 1 to 255 of letters, digits and {@code . _ / # - :}
 * or spaces, starting with a letter, digit or {@code . _ # -}, and not starting with {@code AWS/},
 * which CloudWatch reserves for AWS's own services. A namespace it refuses would lose every metric
 * (and leave the alarms on "no data") without an error anywhere, so the functions refuse it at
 * start-up instead.
 */
public final class MetricNamespace {
  private static final Pattern ALLOWED =
      Pattern.compile("[A-Za-z0-9._#-][A-Za-z0-9._/#: -]{0,254}");

  private MetricNamespace() {}

  /** Null when CloudWatch takes {@code namespace}; else what is wrong with it. */
  public static String problemWith(String namespace) {
    if (namespace.startsWith("AWS/")) {
      return "starts with AWS/, which CloudWatch reserves for AWS's own metrics; choose a namespace"
          + " of your own, e.g. LambdaOutbox";
    }
    if (!ALLOWED.matcher(namespace).matches()) {
      return "is not a CloudWatch namespace: use 1 to 255 letters, digits, spaces and . _ / # - :,"
          + " starting with a letter, digit or . _ # -";
    }
    return null;
  }
}
