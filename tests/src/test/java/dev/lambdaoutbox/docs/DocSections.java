package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.template.TemplateFacts;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sections of the pages that are written from the template and the code rather than by hand,
 * between {@code <!-- BEGIN GENERATED name ... -->} and {@code <!-- END GENERATED name -->}: {@code
 * alarms}, the stack's alarms as template.yaml defines them, and {@code cost}, what the default
 * schedule costs, computed from the template's resources (schedule, memory, alarms, log groups),
 * the metrics the functions emit and {@link Prices}; {@code parameters} and {@code variables}, the
 * configuration reference, from the settings' declarations ({@link SettingsReference}). {@code
 * GeneratedDocsTest} checks the pages hold exactly this; {@code make docs} writes it.
 */
final class DocSections {
  /** What the cost assumes beyond the template and the prices, each stated once, here. */
  private static final double IDLE_RUN_BILLED_SECONDS = 0.025;

  private static final String IDLE_RUN_MEASURED =
      "a median 0.66 ms here on PostgreSQL and 1.20 ms on MariaDB"
          + " (`scripts/run-main dev.lambdaoutbox.bench.IdleRunBenchmark`, 1,000 warm runs on the"
          + " local test bed)";
  private static final int LOG_BYTES_PER_RUN = 1_000;
  private static final int EVENTS_PER_SECOND_A_RUN = 1_000;
  private static final int MESSAGES_PER_BATCH = 10;
  private static final int LOW_LATENCY_POLL_INTERVAL_MS = 200;

  static final Map<String, Supplier<String>> SECTIONS =
      Map.of(
          "alarms",
          DocSections::alarms,
          "cost",
          DocSections::cost,
          "costByMode",
          ModeCosts::table,
          "parameters",
          SettingsReference::parameters,
          "variables",
          SettingsReference::variables);

  private DocSections() {}

  // ---- alarms

  static String alarms() {
    Map<String, Map<String, Object>> alarms = TemplateFacts.alarms();
    StringBuilder md = new StringBuilder();
    md.append("The stack has ")
        .append(numberWord(alarms.size()))
        .append(" alarms. Each notifies the alarm topic (`AlarmTopicArn`) when it fires and again")
        .append(" when it clears, so every new episode notifies; what to do is in the runbook")
        .append(" below.\n\n");
    md.append("| alarm | metric | fires when | a minute without data |\n|---|---|---|---|\n");
    alarms.forEach(
        (name, p) -> {
          md.append("| [`")
              .append(name)
              .append("`](#")
              .append(runbookAnchor(name))
              .append(") | ")
              .append(metric(p))
              .append(" | ")
              .append(condition(name, p))
              .append(" | ")
              .append(missing(String.valueOf(p.getOrDefault("TreatMissingData", "missing"))))
              .append(" |\n");
        });
    return md.toString();
  }

  /** The anchor of the runbook heading that names the alarm. */
  private static String runbookAnchor(String alarm) {
    for (DocPages.Page page : DocPages.all()) {
      for (String heading : page.headings()) {
        if (heading.contains("`" + alarm + "`")) {
          return DocPages.slug(heading);
        }
      }
    }
    return DocPages.slug(alarm);
  }

  private static String metric(Map<String, Object> p) {
    String namespace = String.valueOf(p.get("Namespace"));
    String metric = "`" + p.get("MetricName") + "`";
    if (namespace.startsWith("AWS/")) {
      return metric + " of " + namespace + " for the " + dimensionOwner(p);
    }
    return metric + " of the " + dimensionOwner(p) + "'s EMF line, " + p.get("Statistic");
  }

  /** Who the dimension names: the poller's Service or FunctionName. */
  private static String dimensionOwner(Map<String, Object> p) {
    String dimensions = String.valueOf(p.get("Dimensions"));
    if (dimensions.contains("poller") || dimensions.contains("PollerFunction")) {
      return "poller";
    }
    if (dimensions.contains("reprocessor") || dimensions.contains("DlqReprocessor")) {
      return "reprocessor";
    }
    return dimensions;
  }

  private static String condition(String name, Map<String, Object> p) {
    Object rawThreshold = TemplateFacts.rawProperties(name).get("Threshold");
    String threshold =
        rawThreshold instanceof Map<?, ?> ref && ref.get("Ref") != null
            ? "`" + ref.get("Ref") + "` (" + number(p.get("Threshold")) + " by default)"
            : number(p.get("Threshold"));
    String operator =
        switch (String.valueOf(p.get("ComparisonOperator"))) {
          case "GreaterThanThreshold" -> ">";
          case "GreaterThanOrEqualToThreshold" -> "≥";
          case "LessThanThreshold" -> "<";
          case "LessThanOrEqualToThreshold" -> "≤";
          default -> String.valueOf(p.get("ComparisonOperator"));
        };
    int period = Integer.parseInt(number(p.get("Period")));
    int periods = Integer.parseInt(number(p.get("EvaluationPeriods")));
    int toAlarm = Integer.parseInt(number(p.getOrDefault("DatapointsToAlarm", periods)));
    String unit = period == 60 ? "minute" : period + " s";
    String when;
    if (periods == 1) {
      when = "in a " + unit;
    } else if (toAlarm == periods) {
      when = "in each of " + periods + " " + unit + "s in a row";
    } else {
      when = "in " + toAlarm + " of " + periods + " " + unit + "s";
    }
    String statistic = String.valueOf(p.get("Statistic"));
    String namespace = String.valueOf(p.get("Namespace"));
    String subject = namespace.startsWith("AWS/") ? statistic + " " : "";
    return subject + operator + " " + threshold + " " + when;
  }

  private static String missing(String treat) {
    return switch (treat) {
      case "breaching" -> "counts as breaching: a poller that stops reporting alarms too";
      case "notBreaching" -> "counts as fine";
      case "ignore" -> "changes nothing: the alarm keeps its state";
      default -> "leaves the alarm as missing data";
    };
  }

  // ---- cost

  static String cost() {
    String schedule = String.valueOf(TemplateFacts.parameter("ScheduleExpression").get("Default"));
    long runsPerMonth = runsPerMonth(schedule);
    int memoryMb =
        Integer.parseInt(number(TemplateFacts.functionProperty("PollerFunction", "MemorySize")));
    double gb = memoryMb / 1024.0;
    String pollInterval = number(TemplateFacts.parameter("PollIntervalMs").get("Default"));
    int timeout =
        Integer.parseInt(number(TemplateFacts.parameter("PollerTimeoutSeconds").get("Default")));
    int pollerMetrics = CodeFacts.emittedMetrics("poller-function").size();
    int reprocessorMetrics = CodeFacts.emittedMetrics("dlq-reprocessor-function").size();
    int alarms = TemplateFacts.alarms().size();
    int dashboards = TemplateFacts.resourcesOfType("AWS::CloudWatch::Dashboard").size();
    String pollerLogGroup = logGroupOf("PollerFunction");
    int retentionDays =
        Integer.parseInt(number(TemplateFacts.properties(pollerLogGroup).get("RetentionInDays")));

    double invocations = runsPerMonth * Prices.LAMBDA_PER_MILLION_REQUESTS / 1e6;
    double gbSeconds = runsPerMonth * IDLE_RUN_BILLED_SECONDS * gb;
    double duration = gbSeconds * Prices.LAMBDA_PER_GB_SECOND;
    double metrics = pollerMetrics * Prices.CUSTOM_METRIC_PER_MONTH;
    double alarmCost = alarms * Prices.STANDARD_ALARM_PER_MONTH;
    double dashboardCost = dashboards * Prices.DASHBOARD_PER_MONTH;
    double logGb = runsPerMonth * LOG_BYTES_PER_RUN / 1e9;
    double ingestion = logGb * Prices.LOG_INGESTION_PER_GB;
    double storedGb = logGb * retentionDays / 30.0;
    double storage = storedGb * Prices.LOG_STORAGE_PER_GB_MONTH;
    double secret = Prices.SECRET_PER_MONTH;
    double total =
        invocations + duration + metrics + alarmCost + dashboardCost + ingestion + storage + secret;

    StringBuilder md = new StringBuilder();
    md.append("Prices of US East (N. Virginia), x86, from AWS's pages (")
        .append(Prices.SOURCES)
        .append("): Lambda ")
        .append(money(Prices.LAMBDA_PER_MILLION_REQUESTS))
        .append(" per million requests and $")
        .append(plain(Prices.LAMBDA_PER_GB_SECOND))
        .append(" per GB-second; SNS standard ")
        .append(money(Prices.SNS_PER_MILLION_PUBLISHES))
        .append(" per million publish requests, SQS standard ")
        .append(money(Prices.SQS_PER_MILLION_REQUESTS))
        .append(" per million requests (FIFO ")
        .append(money(Prices.SQS_FIFO_PER_MILLION_REQUESTS))
        .append("), each 64 KB chunk of a request counting as one; SNS deliveries to SQS free;")
        .append(" EventBridge ")
        .append(money(Prices.EVENTBRIDGE_PER_MILLION_EVENTS))
        .append(" per million events put on a bus, each 64 KB chunk of an entry counting as one;")
        .append(" S3 Standard ")
        .append(money(Prices.S3_PUT_PER_1000_REQUESTS))
        .append(" per 1,000 PUT and ")
        .append(money(Prices.S3_GET_PER_1000_REQUESTS))
        .append(" per 1,000 GET requests, ")
        .append(money(Prices.S3_STANDARD_PER_GB_MONTH))
        .append(" per GB a month;")
        .append(" custom metrics ")
        .append(money(Prices.CUSTOM_METRIC_PER_MONTH))
        .append(" each a month, standard alarms ")
        .append(money(Prices.STANDARD_ALARM_PER_MONTH))
        .append(" each, a dashboard ")
        .append(money(Prices.DASHBOARD_PER_MONTH))
        .append(" a month, log ingestion ")
        .append(money(Prices.LOG_INGESTION_PER_GB))
        .append(" per GB and storage ")
        .append(money(Prices.LOG_STORAGE_PER_GB_MONTH))
        .append(" per GB a month; a secret ")
        .append(money(Prices.SECRET_PER_MONTH))
        .append(" a month and ")
        .append(money(Prices.SECRETS_MANAGER_PER_10K_CALLS))
        .append(" per 10,000 calls; KMS ")
        .append(money(Prices.KMS_PER_10K_REQUESTS))
        .append(", a customer-managed key ")
        .append(money(Prices.KMS_KEY_PER_MONTH))
        .append(" a month")
        .append(" per 10,000 requests; a NAT gateway ")
        .append(money(Prices.NAT_GATEWAY_PER_HOUR))
        .append(" an hour, an interface endpoint ")
        .append(money(Prices.INTERFACE_ENDPOINT_PER_AZ_HOUR))
        .append(" an hour per AZ; CloudTrail ")
        .append(money(Prices.CLOUDTRAIL_PER_100K_DATA_EVENTS))
        .append(" per 100,000 data events recorded. Free tiers (")
        .append(Prices.FREE_TIERS)
        .append(") left out.\n\n");

    md.append("**The schedule alone**, `")
        .append(schedule)
        .append("` (`ScheduleExpression`) with `PollIntervalMs` ")
        .append(pollInterval)
        .append(", at ")
        .append(memoryMb)
        .append(" MB (")
        .append(plain(gb))
        .append(" GB):\n\n");
    md.append("| item | arithmetic | a month |\n|---|---|---|\n");
    row(
        md,
        "invocations",
        runsDescription(schedule, runsPerMonth)
            + " × "
            + money(Prices.LAMBDA_PER_MILLION_REQUESTS)
            + " / 1M",
        invocations);
    row(
        md,
        "duration of idle runs",
        grouped(runsPerMonth)
            + " × "
            + plain(IDLE_RUN_BILLED_SECONDS)
            + " s × "
            + plain(gb)
            + " GB = "
            + grouped(Math.round(gbSeconds))
            + " GB-s × $"
            + plain(Prices.LAMBDA_PER_GB_SECOND),
        duration);
    row(
        md,
        "custom metrics",
        "the poller's "
            + pollerMetrics
            + " EMF metrics × "
            + money(Prices.CUSTOM_METRIC_PER_MONTH)
            + " (the reprocessor's "
            + reprocessorMetrics
            + " add "
            + money(reprocessorMetrics * Prices.CUSTOM_METRIC_PER_MONTH)
            + " in a month it is invoked)",
        metrics);
    row(md, "alarms", alarms + " × " + money(Prices.STANDARD_ALARM_PER_MONTH), alarmCost);
    row(
        md,
        "dashboard",
        dashboards + " × " + money(Prices.DASHBOARD_PER_MONTH) + " (`Dashboard` `false`: none)",
        dashboardCost);
    row(
        md,
        "log ingestion",
        grouped(runsPerMonth)
            + " runs × ~"
            + LOG_BYTES_PER_RUN / 1000
            + " KB (EMF line, platform lines) ≈ "
            + plain(round2(logGb))
            + " GB × "
            + money(Prices.LOG_INGESTION_PER_GB),
        ingestion);
    row(
        md,
        "log storage",
        "`"
            + pollerLogGroup
            + "` keeps "
            + retentionDays
            + " days: ≈ "
            + plain(round2(storedGb))
            + " GB × "
            + money(Prices.LOG_STORAGE_PER_GB_MONTH),
        storage);
    row(
        md,
        "the secret",
        "1 × "
            + money(Prices.SECRET_PER_MONTH)
            + " (reads: one per cold start, "
            + money(Prices.SECRETS_MANAGER_PER_10K_CALLS)
            + " per 10,000)",
        secret);
    md.append("| **total** | | **≈ ").append(money(total)).append("** |\n\n");

    double oneSecondRuns = runsPerMonth * 1.0 * gb * Prices.LAMBDA_PER_GB_SECOND;
    double busyGbSeconds = runsPerMonth * (double) timeout * gb;
    md.append("An idle run (claim on an empty outbox, backlog query, EMF line) took ")
        .append(IDLE_RUN_MEASURED)
        .append("; ")
        .append(Math.round(IDLE_RUN_BILLED_SECONDS * 1000))
        .append(" ms leaves room for the round trips to a database in the VPC. Even at 1 s a run")
        .append(" the duration would cost ")
        .append(money(oneSecondRuns))
        .append(". `PollIntervalMs` ")
        .append(LOW_LATENCY_POLL_INTERVAL_MS)
        .append(" with the ")
        .append(timeout)
        .append(" s timeout (`PollerTimeoutSeconds`) instead bills nearly every second of the")
        .append(" month: ")
        .append(grouped(runsPerMonth))
        .append(" × ")
        .append(timeout)
        .append(" s ≈ ")
        .append(plain(round2(busyGbSeconds / 1e6)))
        .append("M GB-s ≈ ")
        .append(money(busyGbSeconds * Prices.LAMBDA_PER_GB_SECOND))
        .append(". The reprocessor costs only in a month it is invoked. The network is not")
        .append(" counted and costs more than all of the above: a NAT gateway is ")
        .append(money(Prices.NAT_GATEWAY_PER_HOUR * Prices.HOURS_A_MONTH))
        .append(" a month plus data; interface endpoints ")
        .append(money(Prices.INTERFACE_ENDPOINT_PER_AZ_HOUR * Prices.HOURS_A_MONTH))
        .append(" a month per AZ each. With `StoreMode` `data-api` the functions need neither;")
        .append(" the Data API bills its requests instead, a few per run (one transaction per")
        .append(" store call; [Aurora pricing](https://aws.amazon.com/rds/aurora/pricing/)).\n\n");

    long requests = 1_000_000L / MESSAGES_PER_BATCH;
    double eventSeconds = 1_000_000.0 / EVENTS_PER_SECOND_A_RUN;
    md.append("**Per million events** (payloads under ")
        .append(plain(64.0 / MESSAGES_PER_BATCH))
        .append(" KB, so a batch of ")
        .append(MESSAGES_PER_BATCH)
        .append(" is one 64 KB chunk):\n\n");
    md.append("| item | arithmetic | per million events |\n|---|---|---|\n");
    row(
        md,
        "SNS topic (`PublishBatch`, " + MESSAGES_PER_BATCH + " a call)",
        grouped(requests) + " requests × " + money(Prices.SNS_PER_MILLION_PUBLISHES) + " / 1M",
        requests * Prices.SNS_PER_MILLION_PUBLISHES / 1e6);
    row(
        md,
        "or SQS queue (`SendMessageBatch`, " + MESSAGES_PER_BATCH + " a call)",
        grouped(requests) + " requests × " + money(Prices.SQS_PER_MILLION_REQUESTS) + " / 1M",
        requests * Prices.SQS_PER_MILLION_REQUESTS / 1e6);
    row(
        md,
        "or EventBridge bus (`PutEvents`, " + MESSAGES_PER_BATCH + " entries a call)",
        "1,000,000 entries × " + money(Prices.EVENTBRIDGE_PER_MILLION_EVENTS) + " / 1M",
        Prices.EVENTBRIDGE_PER_MILLION_EVENTS);
    row(
        md,
        "SNS → subscribed SQS queues",
        "deliveries to SQS are free; the consumers' receives are billed to them",
        0);
    row(
        md,
        "Lambda duration",
        "at "
            + grouped(EVENTS_PER_SECOND_A_RUN)
            + " events/s a run (below what was measured: the packaged poller at the default settings"
            + " published about 1,900 events/s to a broker answering in 15-25 ms, as SNS in the"
            + " same region does; [PERFORMANCE.md](PERFORMANCE.md#throughput-against-the-stand-in-brokerlatencythroughputbenchmark)): "
            + grouped(Math.round(eventSeconds))
            + " s × "
            + plain(gb)
            + " GB × $"
            + plain(Prices.LAMBDA_PER_GB_SECOND),
        eventSeconds * gb * Prices.LAMBDA_PER_GB_SECOND);
    md.append(
            "\nWith the AWS-managed or your own key on the topic, SNS also calls KMS, at most once")
        .append(" per publish request: at most ")
        .append(money(requests * Prices.KMS_PER_10K_REQUESTS / 10_000))
        .append(" per million events. FIFO topics are priced differently (see the SNS page).\n");
    md.append(claimCheckCost());
    md.append(invocationTrailCost());
    md.append(protectionsCost());
    return md.toString();
  }

  /**
   * What the protections a scanner asks for add (security.md): the failure queue, on; the alarm
   * topic's key, the stack's key and access logs, options; the claim check's versioning, on.
   */
  private static String protectionsCost() {
    String encryptAlarmTopic =
        String.valueOf(TemplateFacts.parameter("EncryptAlarmTopic").get("Default"));
    int keptDays =
        Integer.parseInt(
            number(TemplateFacts.parameter("ClaimCheckExpirationDays").get("Default")));
    double dayMore = 1_000_000.0 * LARGE_EVENT_KB / 1e6 / 30.0 * Prices.S3_STANDARD_PER_GB_MONTH;
    return new StringBuilder()
        .append(
            "\n**The protections a scanner asks for** ([security](security.md#what-a-scanner-finds-and-why)):")
        .append(
            " the record of each failed or dropped asynchronous invocation, in `AsyncFailureQueue`")
        .append(" (on), is one SQS request, ")
        .append(money(Prices.SQS_PER_MILLION_REQUESTS))
        .append(
            " per million records, and nothing while nothing fails. `EncryptAlarmTopic` `true` (`")
        .append(encryptAlarmTopic)
        .append("` by default) adds the topic's key, ")
        .append(money(Prices.KMS_KEY_PER_MONTH))
        .append(" a month, and a KMS request (")
        .append(money(Prices.KMS_PER_10K_REQUESTS))
        .append(" per 10,000) per notification. `StackKmsKeyArn` (empty by default) is a key of")
        .append(" yours, ")
        .append(money(Prices.KMS_KEY_PER_MONTH))
        .append(" a month if it is a new one, and its requests: Lambda's at each cold start,")
        .append(" CloudWatch Logs' as it writes. The created claim-check bucket is versioned, and")
        .append(
            " keeps each payload a day after it expires or is replaced: per million large events")
        .append(" above, 1,000,000 × ")
        .append(LARGE_EVENT_KB)
        .append(" KB for a day ≈ ")
        .append(plain(round2(LARGE_EVENT_KB * 1_000_000.0 / 1e6 / 30.0)))
        .append(" GB-months × ")
        .append(money(Prices.S3_STANDARD_PER_GB_MONTH))
        .append(" = ")
        .append(money(dayMore))
        .append(" (1/")
        .append(keptDays)
        .append(" of its storage). `AccessLogBucket` (empty by default) costs the logs' storage in")
        .append(" your bucket, ")
        .append(money(Prices.S3_STANDARD_PER_GB_MONTH))
        .append(" per GB a month.\n")
        .toString();
  }

  /** Invocations of the reprocessor in a month, for what its trail costs. */
  private static final int REPROCESSOR_INVOCATIONS_A_MONTH = 1_000;

  /** What {@code ReprocessorInvocationTrail} adds: a data event per invocation, off by default. */
  private static String invocationTrailCost() {
    String byDefault =
        String.valueOf(TemplateFacts.parameter("ReprocessorInvocationTrail").get("Default"));
    double events =
        REPROCESSOR_INVOCATIONS_A_MONTH * Prices.CLOUDTRAIL_PER_100K_DATA_EVENTS / 100_000;
    return new StringBuilder()
        .append("\n**The reprocessor's invocation trail** (`ReprocessorInvocationTrail` `true`;")
        .append(" `")
        .append(byDefault)
        .append("` by default): CloudTrail records each invocation as a data event, and bills")
        .append(" every one, the first copy included; operators invoke the reprocessor by hand, so")
        .append(" ")
        .append(grouped(REPROCESSOR_INVOCATIONS_A_MONTH))
        .append(" invocations a month cost ")
        .append(grouped(REPROCESSOR_INVOCATIONS_A_MONTH))
        .append(" × ")
        .append(money(Prices.CLOUDTRAIL_PER_100K_DATA_EVENTS))
        .append(" / 100,000 = ")
        .append(money(events))
        .append(", plus the bucket: a log file of a few KB per five minutes with invocations, at ")
        .append(money(Prices.S3_STANDARD_PER_GB_MONTH))
        .append(" per GB a month, kept until you delete it. The trail records nothing else: no")
        .append(" management events, no other function.\n")
        .toString();
  }

  /** A large event's example size for the claim check's cost, in KB, and how long S3 keeps it. */
  private static final int LARGE_EVENT_KB = 300;

  /** What the claim check adds per million large events (payloads stored in S3). */
  private static String claimCheckCost() {
    int keptDays =
        Integer.parseInt(
            number(TemplateFacts.parameter("ClaimCheckExpirationDays").get("Default")));
    double puts = 1_000_000 * Prices.S3_PUT_PER_1000_REQUESTS / 1_000;
    double gets = 1_000_000 * Prices.S3_GET_PER_1000_REQUESTS / 1_000;
    double gbMonths = 1_000_000.0 * LARGE_EVENT_KB / 1e6 * keptDays / 30.0;
    double storage = gbMonths * Prices.S3_STANDARD_PER_GB_MONTH;
    StringBuilder md = new StringBuilder();
    md.append("\n**Per million large events through the claim check** (each payload stored in S3")
        .append(" and its message a pointer; ")
        .append(LARGE_EVENT_KB)
        .append(" KB each, kept ")
        .append(keptDays)
        .append(" days, the created bucket's `ClaimCheckExpirationDays`), on top of the pointer")
        .append(" messages above:\n\n");
    md.append("| item | arithmetic | per million large events |\n|---|---|---|\n");
    row(
        md,
        "S3 PUT (the poller stores each payload; a republish stores it again)",
        "1,000,000 × " + money(Prices.S3_PUT_PER_1000_REQUESTS) + " / 1,000",
        puts);
    row(
        md,
        "S3 GET (each consumer, each delivery)",
        "1,000,000 × " + money(Prices.S3_GET_PER_1000_REQUESTS) + " / 1,000",
        gets);
    row(
        md,
        "S3 storage",
        "1,000,000 × "
            + LARGE_EVENT_KB
            + " KB = "
            + grouped(LARGE_EVENT_KB * 1_000_000L / 1_000_000)
            + " GB × "
            + keptDays
            + "/30 month ≈ "
            + grouped(Math.round(gbMonths))
            + " GB-months × "
            + money(Prices.S3_STANDARD_PER_GB_MONTH),
        storage);
    md.append(
            "\nWithout the claim check the outbox carries no payload over 256 KiB: SNS (256 KiB at")
        .append(
            " most) could not take such an event, and SQS and EventBridge (1 MiB) would bill its ")
        .append(LARGE_EVENT_KB)
        .append(" KB as ")
        .append((LARGE_EVENT_KB + 63) / 64)
        .append(" chunks of 64 KB, while its pointer message is one.\n");
    return md.toString();
  }

  private static void row(StringBuilder md, String item, String arithmetic, double dollars) {
    md.append("| ")
        .append(item)
        .append(" | ")
        .append(arithmetic)
        .append(" | ")
        .append(money(dollars))
        .append(" |\n");
  }

  /** Runs a month of a {@code rate(N minute|minutes|hour|hours)} schedule. */
  static long runsPerMonth(String schedule) {
    Matcher rate =
        Pattern.compile("rate\\((\\d+) (minute|minutes|hour|hours)\\)").matcher(schedule);
    if (!rate.matches()) {
      throw new IllegalStateException("cannot cost the schedule " + schedule);
    }
    long every = Long.parseLong(rate.group(1));
    long perHour = rate.group(2).startsWith("minute") ? 60 / every : 1;
    return rate.group(2).startsWith("minute")
        ? perHour * Prices.HOURS_A_MONTH
        : Prices.HOURS_A_MONTH / every;
  }

  private static String runsDescription(String schedule, long runs) {
    return schedule.equals("rate(1 minute)")
        ? "60 × " + Prices.HOURS_A_MONTH + " h = " + grouped(runs)
        : grouped(runs) + " runs";
  }

  private static String logGroupOf(String function) {
    Object config = TemplateFacts.functionProperty(function, "LoggingConfig");
    Matcher ref = Pattern.compile("LogGroup=\\{Ref=(\\w+)}").matcher(String.valueOf(config));
    if (!ref.find()) {
      throw new IllegalStateException(function + " has no log group of the stack: " + config);
    }
    return ref.group(1);
  }

  // ---- formatting

  /** Dollars: two decimals from $0.10 up, else two significant digits; $0 for nothing. */
  static String money(double dollars) {
    if (dollars == 0) {
      return "$0";
    }
    BigDecimal value = BigDecimal.valueOf(dollars);
    value =
        dollars >= 0.10
            ? value.setScale(2, RoundingMode.HALF_UP)
            : value.round(new MathContext(2, RoundingMode.HALF_UP));
    return "$"
        + value
            .stripTrailingZeros()
            .toPlainString()
            .replaceAll("^(\\d+\\.\\d)$", "$10")
            .replaceAll("^(\\d+)$", "$1.00");
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  private static double round2(double value) {
    return BigDecimal.valueOf(value).round(new MathContext(2, RoundingMode.HALF_UP)).doubleValue();
  }

  private static String grouped(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String number(Object o) {
    String s = String.valueOf(o);
    return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
  }

  private static String numberWord(int n) {
    List<String> words =
        new ArrayList<>(
            List.of(
                "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten"));
    return n < words.size() ? words.get(n) : Integer.toString(n);
  }
}
