package dev.lambdaoutbox.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The stack's alarms (template.yaml with its default parameters; {@code DemoAlarmsTest} holds these
 * rules to it), evaluated on the metrics the packaged poller emits, as CloudWatch would evaluate
 * them. On the scheduled {@code rate(1 minute)} each poller run writes one EMF line, so one run
 * stands for one minute; the demo runs the schedule faster, a minute to a run.
 *
 * <p>This class is the one place the demo names alarms and metrics: the story asks for {@link
 * #DEAD_LETTERS}, {@link #BACKLOG_AGE}, {@link #DESTINATION_DOWN}, {@link #PARKED_KEYS}, {@link
 * #WAITING_ON_MISCONFIGURED} and {@link #POLLER_ERRORS} by what they are for.
 */
public final class Alarms {
  /** What CloudWatch does with a period that has no datapoint. */
  public enum Missing {
    BREACHING,
    NOT_BREACHING,
    IGNORE
  }

  /**
   * One alarm of the template.
   *
   * @param name the alarm's logical id in template.yaml
   * @param metric the metric's name (AWS/Lambda's {@code Errors} for the poller's errors)
   * @param statistic {@code Sum} or {@code Maximum}
   * @param periodSeconds the period, a multiple of 60 (one poller run a minute)
   * @param orEqual whether reaching the threshold breaches ({@code >=}) or only passing it ({@code
   *     >})
   * @param periods the periods evaluated ({@code EvaluationPeriods})
   * @param toAlarm breaching periods among them that set it off ({@code DatapointsToAlarm})
   */
  public record Rule(
      String name,
      String metric,
      String statistic,
      int periodSeconds,
      boolean orEqual,
      double threshold,
      int periods,
      int toAlarm,
      Missing missing) {

    public boolean breaches(double value) {
      return orEqual ? value >= threshold : value > threshold;
    }

    /** Poller runs (minutes) one period spans. */
    int runsPerPeriod() {
      return Math.max(1, periodSeconds / 60);
    }

    /** The condition as the alarm states it, e.g. {@code DeadLettered Sum > 0}. */
    String condition() {
      return String.format(
          Locale.ROOT,
          "%s %s %s %s over %d s, %d of %d",
          metric,
          statistic,
          orEqual ? ">=" : ">",
          threshold == Math.rint(threshold) ? Long.toString((long) threshold) : threshold,
          periodSeconds,
          toAlarm,
          periods);
    }
  }

  /** New dead letters: rows moved to the dead-letter table this minute. */
  public static final Rule DEAD_LETTERS =
      new Rule(
          "DeadLetteredAlarm", "DeadLettered", "Sum", 60, false, 0, 1, 1, Missing.NOT_BREACHING);

  /** Rows wait too long to be published (the template's default threshold, 300 s). */
  public static final Rule BACKLOG_AGE =
      new Rule(
          "OldestUnpublishedAgeAlarm",
          "OldestUnpublishedAgeSeconds",
          "Maximum",
          60,
          false,
          300,
          5,
          5,
          Missing.BREACHING);

  /** A destination has been down (unreachable or misconfigured) for three minutes. */
  public static final Rule DESTINATION_DOWN =
      new Rule(
          "DestinationDownAlarm", "DestinationsDown", "Maximum", 60, true, 1, 3, 3, Missing.IGNORE);

  /**
   * An aggregate is parked behind a dead letter (with {@code OUTBOX_ORDERING=aggregate}): its later
   * events wait until an operator replays or discards it. The demo's poller does not order, so this
   * one stays OK.
   */
  public static final Rule PARKED_KEYS =
      new Rule("ParkedKeysAlarm", "ParkedKeys", "Maximum", 60, false, 0, 1, 1, Missing.IGNORE);

  /**
   * Rows wait for a destination that refuses every message (missing, not allowed, its key): fires
   * while any waits, clears once none does.
   */
  public static final Rule WAITING_ON_MISCONFIGURED =
      new Rule(
          "WaitingOnMisconfiguredAlarm",
          "WaitingOnMisconfigured",
          "Maximum",
          60,
          false,
          0,
          1,
          1,
          Missing.IGNORE);

  /** Whole poller invocations failed (Lambda's own metric). */
  public static final Rule POLLER_ERRORS =
      new Rule("PollerErrorsAlarm", "Errors", "Sum", 60, false, 0, 1, 1, Missing.NOT_BREACHING);

  /** Every alarm of the template. */
  public static final List<Rule> RULES =
      List.of(
          DEAD_LETTERS,
          BACKLOG_AGE,
          DESTINATION_DOWN,
          PARKED_KEYS,
          WAITING_ON_MISCONFIGURED,
          POLLER_ERRORS);

  /** A change of an alarm's state after a period. */
  record Transition(Rule rule, boolean alarm, double value) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%-27s -> %-5s (%s; now %s)",
          rule.name(),
          alarm ? "ALARM" : "OK",
          rule.condition(),
          Double.isNaN(value) ? "no data" : String.format(Locale.ROOT, "%.0f", value));
    }
  }

  private final Map<Rule, List<Double>> minutes = new LinkedHashMap<>();
  private final Map<Rule, List<Double>> datapoints = new LinkedHashMap<>();
  private final Map<Rule, Boolean> inAlarm = new LinkedHashMap<>();
  private final Map<Rule, Integer> fired = new LinkedHashMap<>();

  Alarms() {
    for (Rule rule : RULES) {
      minutes.put(rule, new ArrayList<>());
      datapoints.put(rule, new ArrayList<>());
      inAlarm.put(rule, false);
      fired.put(rule, 0);
    }
  }

  /**
   * Adds one minute's values: each rule's metric from {@code value} (NaN when the minute had none);
   * returns the alarms whose state changed.
   */
  List<Transition> minute(ToDoubleFunction<String> value) {
    List<Transition> changed = new ArrayList<>();
    for (Rule rule : RULES) {
      List<Double> values = minutes.get(rule);
      values.add(value.applyAsDouble(rule.metric()));
      double point = statistic(rule, values);
      List<Double> series = datapoints.get(rule);
      series.add(point);
      Boolean now = evaluate(rule, series);
      if (now != null && now != inAlarm.get(rule)) {
        inAlarm.put(rule, now);
        if (now) {
          fired.merge(rule, 1, Integer::sum);
        }
        changed.add(new Transition(rule, now, point));
      }
    }
    return changed;
  }

  /** The rule's statistic over the minutes of its last period; NaN when none had a value. */
  private static double statistic(Rule rule, List<Double> values) {
    double result = Double.NaN;
    for (double v :
        values.subList(Math.max(0, values.size() - rule.runsPerPeriod()), values.size())) {
      if (!Double.isNaN(v)) {
        result =
            Double.isNaN(result)
                ? v
                : rule.statistic().equals("Sum") ? result + v : Math.max(result, v);
      }
    }
    return result;
  }

  /** ALARM (true), OK (false) or unchanged (null), from the last periods of {@code series}. */
  private static Boolean evaluate(Rule rule, List<Double> series) {
    if (rule.missing() == Missing.IGNORE && Double.isNaN(series.get(series.size() - 1))) {
      return null;
    }
    List<Double> window =
        series.subList(Math.max(0, series.size() - rule.periods()), series.size());
    int breaching = 0;
    for (double v : window) {
      boolean breach = Double.isNaN(v) ? rule.missing() == Missing.BREACHING : rule.breaches(v);
      if (breach) {
        breaching++;
      }
    }
    return breaching >= rule.toAlarm();
  }

  /** How often {@code rule}'s alarm went into ALARM. */
  int timesFired(Rule rule) {
    return fired.get(rule);
  }

  /** Whether {@code rule}'s alarm is in ALARM now. */
  boolean inAlarm(Rule rule) {
    return inAlarm.get(rule);
  }
}
