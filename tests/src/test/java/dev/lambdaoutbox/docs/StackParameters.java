package dev.lambdaoutbox.docs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The template parameters no function reads, declared once for the configuration reference: what
 * each means and, for a text parameter, what it takes (a number's or a choice's bounds are
 * template.yaml's own). The parameters the functions read are declared with the variables they set
 * ({@code PollerVariables}, {@code ReprocessorVariables}, {@code DatabaseVariables}, {@code
 * SharedVariables}); {@code TemplateSettingsTest} checks that each parameter is declared in one of
 * the two places, once.
 */
public final class StackParameters {
  /**
   * One parameter of the stack.
   *
   * @param bounds what a text parameter takes; null for a number or a choice
   * @param feeds a variable the template computes from this parameter among others, or null
   * @param feedsAs how it does, e.g. {@code ReplayDestinations}' default
   */
  public record Parameter(String bounds, String meaning, String feeds, String feedsAs) {}

  public static final Map<String, Parameter> ALL = all();

  private StackParameters() {}

  private static Map<String, Parameter> all() {
    Map<String, Parameter> all = new LinkedHashMap<>();
    all.put(
        "SubnetIds",
        stack(
            "subnet ids",
            "`jdbc`, required there: where the functions run, private subnets reaching the"
                + " database and the AWS services"
                + " ([deploying.md](deploying.md#what-the-stack-needs))"));
    all.put(
        "WakeUpInvokerRoleArn",
        stack(
            "an IAM role ARN",
            "the role of the application whose `PollerWaker` wakes the poller after its commits:"
                + " the stack lets it, and nothing else, invoke the poller's alias `live` (output"
                + " `WakeUpFunctionArn`; a role in another account also attaches the"
                + " `WakeUpInvokerPolicy` output to its own policy). Empty: no wake-ups"
                + " ([waking the poller](writing.md#waking-the-poller-after-a-commit))"));
    all.put(
        "SecurityGroupIds",
        stack(
            "security group ids",
            "`jdbc`, required there: groups the database (and the VPC endpoints) admit"));
    all.put(
        "DatabaseTlsCaLayerArn",
        stack(
            "a layer version ARN",
            "a Lambda layer both functions get, holding `DatabaseTlsCaFile` under `/opt`"));
    all.put(
        "OutboxTopicType",
        stack(
            null,
            "the stack creates the outbox topic `<stack>-outbox` (or `<stack>-outbox.fifo`);"
                + " `none` uses only existing destinations, which then need `DefaultDestination`"
                + " and `PublishTopicArns`/`PublishQueueArns`/`PublishEventBusArns` (the stack refuses"
                + " to deploy without"
                + " them)"));
    all.put(
        "OutboxTopicKmsKey",
        stack(
            "a KMS key ARN",
            "key of the created topic; empty for the AWS-managed `alias/aws/sns`. With your key"
                + " the poller gets `kms:GenerateDataKey` and `kms:Decrypt` on it, and its key"
                + " policy must let subscribers' services (e.g. `sqs.amazonaws.com`) use it"));
    all.put(
        "PublishTopicArns",
        new Parameter(
            "comma-separated topic ARNs",
            "existing topics the poller may publish to: every topic `DefaultDestination`,"
                + " `Routes` or your events name. A wildcard is taken as typed",
            "OUTBOX_REPLAY_DESTINATIONS",
            "`ReplayDestinations`' default"));
    all.put(
        "PublishQueueArns",
        new Parameter(
            "comma-separated queue ARNs",
            "existing queues the poller may send to, as ARNs"
                + " (`arn:aws:sqs:eu-west-1:123456789012:orders` for"
                + " `https://sqs.eu-west-1.amazonaws.com/123456789012/orders`)",
            "OUTBOX_REPLAY_DESTINATIONS",
            "`ReplayDestinations`' default"));
    all.put(
        "PublishEventBusArns",
        stack(
            "comma-separated event bus ARNs",
            "existing EventBridge event buses the poller may put events on"
                + " (`arn:aws:events:eu-west-1:123456789012:event-bus/orders`): every bus"
                + " `DefaultDestination` or `Routes` name ([delivery.md](delivery.md#eventbridge))"));
    all.put(
        "PublishKmsKeyArns",
        stack(
            "comma-separated key ARNs",
            "customer-managed keys of those topics and queues, of the `ReplayDestinations` and of"
                + " an existing `ClaimCheckBucket`; the poller may use them. Consumers reading the"
                + " bucket need `kms:Decrypt` on its key in their own policy"
                + " ([consuming.md](consuming.md#payloads-stored-in-s3-claim-checks))"));
    all.put(
        "DbSecretKmsKeyArn",
        stack(
            "a KMS key ARN",
            "the customer-managed key `DbSecretArn` is encrypted with: both functions may"
                + " `kms:Decrypt` with it, through Secrets Manager only (the Data API reads the"
                + " secret as the caller, so in both modes). Empty: the AWS-managed"
                + " `aws/secretsmanager` key, which needs no permission of theirs"));
    all.put(
        "ScheduleExpression",
        stack("`rate(…)` or `cron(…)`", "how often EventBridge starts the poller"));
    all.put(
        "PollerTimeoutSeconds",
        stack(
            null,
            "the poller's Lambda timeout; at least 20 s, because it starts a publish call only"
                + " with that call's 10 s timeout and a 3 s margin left, after the connect (up to"
                + " 5 s) and the secret"));
    all.put(
        "PollerReservedConcurrency",
        stack(
            null,
            "poller runs reserved for (and at most allowed to) it; 0 reserves nothing (new"
                + " accounts cannot reserve any), unless `WakeUpInvokerRoleArn` is set: then"
                + " `MaxConcurrentPollers` is reserved, which bounds the runs wake-ups start"
                + " ([waking the poller](writing.md#waking-the-poller-after-a-commit))"));
    all.put(
        "ReprocessorReservedConcurrency",
        stack(
            null,
            "reprocessor runs reserved for (and at most allowed to) it, so pollers scaling out"
                + " cannot starve the operators; 0 reserves nothing (new accounts cannot reserve"
                + " any). With `MaxConcurrentPollers` above 1 the stack needs this or"
                + " `PollerReservedConcurrency` (or wake-ups on, which reserve the poller's)"
                + " ([security](security.md#concurrency-isolation))"));
    all.put(
        "AlarmEmail",
        stack(
            "an e-mail address",
            "subscribed to the alarm topic (confirm the message AWS sends); empty: subscribe your"
                + " pager to output `AlarmTopicArn`"));
    all.put(
        "OldestUnpublishedAgeAlarmSeconds",
        stack(
            null,
            "the threshold of `OldestUnpublishedAgeAlarm`"
                + " ([operating.md](operating.md#the-alarms))"));
    all.put(
        "Dashboard",
        stack(
            null,
            "the stack creates the CloudWatch dashboard `<stack>-outbox` (output `DashboardUrl`)"
                + " ([operating.md](operating.md#the-dashboard))"));
    all.put(
        "ReprocessorInvocationTrail",
        stack(
            null,
            "the stack creates a CloudTrail trail recording every invocation of the reprocessor"
                + " (data events: the IAM principal that invoked it, and the request id its audit"
                + " rows hold) in a bucket of its own (output `ReprocessorInvocationTrailBucket`);"
                + " billed per event ([security](security.md#the-audits-identity-and-cloudtrail),"
                + " [cost](deploying.md#what-the-default-schedule-costs))"));
    all.put(
        "ClaimCheckExpirationDays",
        stack(
            null,
            "with `ClaimCheckBucket` `Create`: the created bucket deletes a stored payload this"
                + " many days after it was last written (each publish of its event writes it"
                + " again); more than `ClaimCheckConsumerRetentionDays`, or the stack refuses to"
                + " deploy ([delivery.md](delivery.md#how-long-a-payload-is-kept))"));
    all.put(
        "ClaimCheckConsumerRetentionDays",
        stack(
            null,
            "the longest an outbox message may wait in any consumer's queue, in days: the"
                + " queues' `MessageRetentionPeriod` (SQS: at most 14), plus a FIFO queue's"
                + " dead-letter queue's; with `ClaimCheckBucket` `Create`,"
                + " `ClaimCheckExpirationDays` must be more"
                + " ([delivery.md](delivery.md#how-long-a-payload-is-kept))"));
    all.put(
        "ClaimCheckKmsKeyArn",
        stack(
            "a KMS key ARN",
            "a customer-managed key for the stored payloads: the created bucket encrypts with it"
                + " (SSE-KMS, with an S3 Bucket Key), or, with an existing bucket, the key that"
                + " bucket uses; the poller gets `kms:GenerateDataKey` on it, and consumers need"
                + " `kms:Decrypt`. Empty: the created bucket uses S3-managed keys (SSE-S3)"));
    all.put(
        "EncryptAlarmTopic",
        stack(
            null,
            "`true`: the alarm topic is encrypted with a KMS key the stack creates, whose policy"
                + " lets CloudWatch alarms publish to it (they cannot use the AWS-managed"
                + " `alias/aws/sns`); a key costs $1 a month. `false`: notifications (alarm names,"
                + " states, thresholds; no event data) are stored unencrypted"
                + " ([security](security.md#what-a-scanner-finds-and-why))"));
    all.put(
        "StackKmsKeyArn",
        stack(
            "a KMS key ARN",
            "a customer-managed key of yours for what the stack keeps at rest: both functions'"
                + " environment variables and SnapStart snapshots, and its log groups. Its key policy"
                + " must let CloudWatch Logs use it, and whoever deploys must be allowed to. Empty:"
                + " AWS-managed keys ([security](security.md#keys-and-access-logs-of-your-own))"));
    all.put(
        "AccessLogBucket",
        stack(
            "an S3 bucket name",
            "an existing bucket of yours, in the stack's region, that receives the S3 server"
                + " access logs of the buckets the stack creates (the claim check's, the trail's)"
                + " under `<stack>/`; its policy must let S3's logging service write there. Empty: no"
                + " access logs ([security](security.md#keys-and-access-logs-of-your-own))"));
    return Map.copyOf(all);
  }

  private static Parameter stack(String bounds, String meaning) {
    return new Parameter(bounds, meaning, null, null);
  }
}
