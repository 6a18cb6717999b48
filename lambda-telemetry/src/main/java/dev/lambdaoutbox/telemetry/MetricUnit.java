package dev.lambdaoutbox.telemetry;

/** The CloudWatch units the functions use. */
public enum MetricUnit {
  COUNT("Count"),
  MILLISECONDS("Milliseconds"),
  SECONDS("Seconds");

  private final String cloudWatchName;

  MetricUnit(String cloudWatchName) {
    this.cloudWatchName = cloudWatchName;
  }

  public String cloudWatchName() {
    return cloudWatchName;
  }
}
