package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.store.config.Setting.Type.HOURS;
import static dev.lambdaoutbox.store.config.Setting.Type.INTEGER;
import static dev.lambdaoutbox.store.config.Setting.Type.MILLISECONDS;
import static dev.lambdaoutbox.store.config.Setting.Type.SECONDS;

import dev.lambdaoutbox.store.config.DatabaseVariables;
import dev.lambdaoutbox.store.config.Setting;
import dev.lambdaoutbox.store.config.SharedVariables;
import java.util.ArrayList;
import java.util.List;

/**
 * The poller's settings, declared once: where events go, how hard and how fast it publishes, and
 * how much one invocation does. {@link PollerConfig#fromEnvironment} reads and validates them; the
 * configuration reference (docs/configuration.md) is generated from them. The database's and the
 * shared ones are {@link DatabaseVariables} and {@link SharedVariables}.
 */
public final class PollerVariables {
  public static final Setting DEFAULT_DESTINATION =
      Setting.text(
              "OUTBOX_DEFAULT_DESTINATION",
              null,
              "an SNS topic ARN, SQS queue URL or EventBridge event bus ARN")
          .parameter("DefaultDestination")
          .meaning(
              "where events without a destination of their own or a matching route go; empty:"
                  + " the created topic ([where events go](#where-events-go))");

  public static final Setting ROUTES =
      Setting.text("OUTBOX_ROUTES", "{}", "a JSON object")
          .parameter("Routes")
          .meaning(
              "event-type pattern to destination, e.g."
                  + " `{\"reservation.*\":\"arn:aws:sns:…:reservations\"}`"
                  + " ([where events go](#where-events-go))");

  public static final Setting EVENT_SOURCE =
      Setting.text("OUTBOX_EVENT_SOURCE", "lambda-outbox", "1 to 256 characters, not `aws.…`")
          .parameter("EventSource")
          .meaning(
              "the `Source` of every event put on an EventBridge bus (its `DetailType` is the"
                  + " event type); rules match on it ([delivery.md](delivery.md#eventbridge))");

  public static final Setting EVENT_BUS_MAX_ENTRY_BYTES =
      Setting.number("OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES", INTEGER, 262_144, 16_384, 1_048_576)
          .parameter("EventBusMaxEntryBytes")
          .meaning(
              "the largest entry the poller puts on an EventBridge bus, as EventBridge counts it"
                  + " (`Source`, `DetailType`, `Detail`, 14 for `Time`): what every target of the"
                  + " bus's rules takes (SNS and Step Functions 256 KiB, SQS 1 MiB);"
                  + " PutEvents itself takes 1 MiB. A larger entry goes through the claim check, or"
                  + " without a bucket is dead-lettered as `MESSAGE_TOO_LARGE` before the put"
                  + " ([delivery.md](delivery.md#eventbridge))");

  public static final Setting MAX_RETRIES =
      Setting.number("OUTBOX_MAX_RETRIES", INTEGER, 10, 0, 100)
          .parameter("MaxRetries")
          .meaning(
              "retries after the first attempt before a row is dead-lettered; only failures of the"
                  + " message itself spend them ([delivery.md](delivery.md))");

  public static final Setting BACKOFF_BASE_MS =
      Setting.number("OUTBOX_BACKOFF_BASE_MS", MILLISECONDS, 1_000, 10, 3_600_000)
          .meaning(
              "capped exponential backoff with jitter: retry n waits between half and all of"
                  + " `min(max, base × 2^(n-1))`; this is the base");

  public static final Setting BACKOFF_MAX_MS =
      Setting.number("OUTBOX_BACKOFF_MAX_MS", MILLISECONDS, 900_000, 10, 43_200_000)
          .meaning("the backoff's cap, at least `OUTBOX_BACKOFF_BASE_MS`");

  public static final Setting PROBE_INTERVAL_MIN_MS =
      Setting.number("OUTBOX_PROBE_INTERVAL_MIN_MS", MILLISECONDS, 5_000, 1_000, 60_000)
          .parameter("ProbeIntervalMinMs")
          .meaning(
              "a destination found down is probed this long after, then at doubling intervals"
                  + " (`min(max, min × 2^(n-1))` for its n-th probe); its rows wait without"
                  + " spending retries");

  public static final Setting PROBE_INTERVAL_MAX_MS =
      Setting.number("OUTBOX_PROBE_INTERVAL_MAX_MS", MILLISECONDS, 60_000, 5_000, 3_600_000)
          .parameter("ProbeIntervalMaxMs")
          .meaning(
              "the longest interval between probes (at least `ProbeIntervalMinMs`): a destination"
                  + " back up is noticed within it plus one schedule period");

  public static final Setting MAX_SEND_RATE =
      Setting.number("OUTBOX_MAX_SEND_RATE", INTEGER, 0, 0, 100_000)
          .parameter("MaxSendRate")
          .meaning(
              "messages per second at most to each destination, all poller runs together: each"
                  + " run keeps to this ÷ `MaxConcurrentPollers`, so a backlog after an outage"
                  + " reaches consumers at this pace; a destination that throttles is sent to"
                  + " slower for a while whatever the cap ([send rates](delivery.md#send-rates))."
                  + " 0: no cap");

  public static final Setting BATCH_SIZE =
      Setting.number("OUTBOX_BATCH_SIZE", INTEGER, 100, 1, 1_000)
          .parameter("BatchSize")
          .meaning(
              "rows a run's first claim takes at most, the smallest claim: a full claim is followed"
                  + " at once by another of twice its size, up to `OUTBOX_MAX_BATCH_SIZE`, so a"
                  + " backlog drains in one run; a short claim, the outbox nearly empty, brings the"
                  + " next back to this size");

  public static final Setting MAX_BATCH_SIZE =
      Setting.number("OUTBOX_MAX_BATCH_SIZE", INTEGER, 1_000, 1, 1_000)
          .parameter("MaxBatchSize")
          .meaning(
              "the largest claim, at least `BatchSize`; equal to it, every claim is of that size. A"
                  + " claim grows only while the last round's pace publishes it in half the time its"
                  + " rows may still be sent, and takes no more rows than fit its result in bytes"
                  + " ([claim size](PERFORMANCE.md#a-claim-size-that-adapts))");

  public static final Setting POLL_INTERVAL_MS =
      Setting.number("OUTBOX_POLL_INTERVAL_MS", MILLISECONDS, 0, 0, 60_000)
          .parameter("PollIntervalMs")
          .meaning(
              "0: each run drains the due rows and stops. Above 0: it polls again this often while"
                  + " idle until close to its timeout: lower latency, paid in database load and"
                  + " Lambda duration ([cost](deploying.md#what-the-default-schedule-costs)). From"
                  + " about 1,000 events/s, raise `BatchSize` to 1000 with it (measured in"
                  + " [PERFORMANCE.md](PERFORMANCE.md))");

  public static final Setting PUBLISH_TIMEOUT_MS =
      Setting.number("OUTBOX_PUBLISH_TIMEOUT_MS", MILLISECONDS, 10_000, 1_000, 120_000)
          .meaning("the longest one SNS/SQS batch call may take, the SDK's retries included");

  public static final Setting LEASE_SECONDS =
      Setting.number("OUTBOX_LEASE_SECONDS", SECONDS, 120, 10, 900)
          .meaning(
              "how long a claimed row is reserved; a crashed invocation's rows are claimable after"
                  + " it (must exceed twice the publish timeout plus the safety margin)");

  public static final Setting SAFETY_MARGIN_MS =
      Setting.number("OUTBOX_SAFETY_MARGIN_MS", MILLISECONDS, 3_000, 500, 60_000)
          .meaning(
              "the poller stops starting work this long before the Lambda timeout: no batch is"
                  + " claimed or sent that could not finish before it");

  public static final Setting PUBLISH_CONCURRENCY =
      Setting.number("OUTBOX_PUBLISH_CONCURRENCY", INTEGER, 8, 1, 64)
          .meaning(
              "batch calls in flight at once, across destinations, and as many claim-check"
                  + " uploads beside them. The poller lets the JVM keep"
                  + " as many idle connections per broker endpoint (`http.maxConnections`, 5 by"
                  + " default), unless `JAVA_TOOL_OPTIONS` sets it");

  public static final Setting RETENTION_HOURS =
      Setting.number("OUTBOX_RETENTION_HOURS", HOURS, 0, 0, 8_760)
          .parameter("RetentionHours")
          .meaning(
              "keep published rows as `SENT` this long (idempotency keys stay taken); 0 deletes at"
                  + " once");

  public static final Setting IDEMPOTENCY_WINDOW_HOURS =
      Setting.number("OUTBOX_IDEMPOTENCY_WINDOW_HOURS", HOURS, 24, 1, 8_760)
          .parameter("IdempotencyWindowHours")
          .meaning(
              "how long an idempotency key stays taken after its event was written; each run's"
                  + " retention pass deletes older keys"
                  + " ([choosing it](writing.md#idempotency-keys-and-their-window))");

  public static final Setting MAX_CONCURRENT_POLLERS =
      Setting.number("OUTBOX_MAX_CONCURRENT_POLLERS", INTEGER, 1, 1, 1_000)
          .parameter("MaxConcurrentPollers")
          .meaning(
              "the most poller runs draining at once. Above 1, a scheduled run that finds more due"
                  + " rows than it can publish before its timeout starts further runs of its own"
                  + " function (asynchronous `Invoke`, marked so they drain and stop and start no"
                  + " others), up to this many in all; the poller may then invoke itself (and"
                  + " nothing else). The rate one run publishes is what the container measured on"
                  + " an earlier busy run (500 events/s until then); with `Ordering` `aggregate`"
                  + " the events of parked aggregates are not counted. Keep it at most"
                  + " `PollerReservedConcurrency` when that is set. 1: never");

  public static final Setting PIPELINE =
      Setting.choice(
              "OUTBOX_PIPELINE",
              "auto",
              List.of("auto", "true", "false"),
              "is not auto, true or false")
          .ignoringCase()
          .parameter("Pipeline")
          .meaning(
              "`true`: a run claims its next batch while it publishes one, and records outcomes on"
                  + " a second database connection meanwhile (`jdbc`: two connections per run;"
                  + " `data-api`: calls from two threads). `false`: one connection, claim, publish"
                  + " and record in turn; faster with `Ordering` `aggregate` over few busy"
                  + " aggregates ([PERFORMANCE.md](PERFORMANCE.md)), hence `auto`: `true` unless"
                  + " `Ordering` is `aggregate`");

  public static final Setting WAKE_LINGER_MS =
      Setting.number("OUTBOX_WAKE_LINGER_MS", MILLISECONDS, 2_000, 0, 60_000)
          .meaning(
              "a run woken after a commit (the writer's `PollerWaker`) drains the due rows, then"
                  + " claims every 100 ms until it has found no row for this long, and, whatever it"
                  + " finds, until a second past the waker's quiet period (which the wake-up"
                  + " announces) from its start, so the commits that follow are published by the"
                  + " same run; a woken run without a quiet period whose first claim finds nothing"
                  + " stops at once, and one woken while another lingers as long drains once and"
                  + " stops. 0: drain and stop, unless the wake-up announces a quiet period"
                  + " ([waking the poller](writing.md#waking-the-poller-after-a-commit))");

  public static final Setting PARKING_CHUNK_SIZE =
      Setting.number("OUTBOX_PARKING_CHUNK_SIZE", INTEGER, 5_000, 100, 50_000)
          .meaning(
              "with ordering, the most rows a completion holds back behind each head that backs"
                  + " off or waits, the first in `seq` order"
                  + " ([parked keys](operating.md#parked-keys-parkedkeysalarm))");

  public static final Setting CLAIM_CHECK_BUCKET =
      Setting.text("OUTBOX_CLAIM_CHECK_BUCKET", null, "an S3 bucket name")
          .parameter("ClaimCheckBucket")
          .meaning(
              "the claim check: a payload too large for its destination is stored in this bucket"
                  + " and the message carries a pointer to it, in the format of AWS's"
                  + " payload-offloading libraries ([delivery.md](delivery.md#large-payloads-the-claim-check));"
                  + " empty: such rows are dead-lettered as `MESSAGE_TOO_LARGE`. In the stack,"
                  + " `Create` makes a bucket whose objects expire after `ClaimCheckExpirationDays`");

  public static final Setting CLAIM_CHECK_BUCKET_OWNER =
      Setting.text("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", null, "a 12-digit AWS account id")
          .meaning(
              "required with `OUTBOX_CLAIM_CHECK_BUCKET`: the account that owns the bucket, sent"
                  + " with every upload as S3's `ExpectedBucketOwner`, so a bucket of that name in"
                  + " another account refuses the payload; the stack sets its own account");

  public static final Setting CLAIM_CHECK_PREFIX =
      Setting.text("OUTBOX_CLAIM_CHECK_PREFIX", "outbox-payloads/", "an S3 key prefix")
          .parameter("ClaimCheckPrefix")
          .meaning(
              "with `OUTBOX_CLAIM_CHECK_BUCKET`: each payload is stored under this prefix, then its"
                  + " destination's (`sns/`, `sqs/` or `events/`, the account, the name), its event"
                  + " id and its SHA-256, so consumers may read their destinations' payloads only,"
                  + " and an event id used again never overwrites another payload"
                  + " ([delivery.md](delivery.md#large-payloads-the-claim-check))");

  public static final Setting CLAIM_CHECK_THRESHOLD_BYTES =
      Setting.number("OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", INTEGER, 0, 0, 16_777_215)
          .parameter("ClaimCheckThresholdBytes")
          .meaning(
              "with `OUTBOX_CLAIM_CHECK_BUCKET`: payloads of more UTF-8 bytes than this are stored"
                  + " in S3 even when their destination would take them; 0: only those it would"
                  + " not");

  public static final Setting MESSAGE_ENVELOPE =
      Setting.choice(
              "OUTBOX_MESSAGE_ENVELOPE",
              "outbox",
              List.of("outbox", "cloudevents"),
              "is not outbox or cloudevents")
          .ignoringCase()
          .parameter("MessageEnvelope")
          .meaning(
              "the body of SNS and SQS messages: `outbox`, the payload as written; `cloudevents`,"
                  + " a structured CloudEvent (JSON) whose `data` is the payload and whose `source`"
                  + " is `OUTBOX_EVENT_SOURCE`, which must then be a URI reference. The message"
                  + " attributes are the same either way; bus entries keep EventBridge's envelope"
                  + " ([consuming.md](consuming.md#cloudevents))");

  /** The poller's own service name, the metrics' {@code Service} dimension when unset. */
  public static final Setting SERVICE_NAME =
      SharedVariables.SERVICE_NAME.withDefault("outbox-poller");

  private PollerVariables() {}

  /** Every variable the poller reads: the database's, the shared ones, then its own. */
  public static List<Setting> all() {
    List<Setting> all = new ArrayList<>(DatabaseVariables.all());
    for (Setting shared : SharedVariables.all()) {
      all.add(shared.name().equals(SERVICE_NAME.name()) ? SERVICE_NAME : shared);
    }
    all.addAll(
        List.of(
            DEFAULT_DESTINATION,
            ROUTES,
            EVENT_SOURCE,
            EVENT_BUS_MAX_ENTRY_BYTES,
            MAX_RETRIES,
            BACKOFF_BASE_MS,
            BACKOFF_MAX_MS,
            PROBE_INTERVAL_MIN_MS,
            PROBE_INTERVAL_MAX_MS,
            MAX_SEND_RATE,
            BATCH_SIZE,
            MAX_BATCH_SIZE,
            POLL_INTERVAL_MS,
            PUBLISH_TIMEOUT_MS,
            LEASE_SECONDS,
            SAFETY_MARGIN_MS,
            PUBLISH_CONCURRENCY,
            RETENTION_HOURS,
            IDEMPOTENCY_WINDOW_HOURS,
            MAX_CONCURRENT_POLLERS,
            PIPELINE,
            WAKE_LINGER_MS,
            PARKING_CHUNK_SIZE,
            CLAIM_CHECK_BUCKET,
            CLAIM_CHECK_BUCKET_OWNER,
            CLAIM_CHECK_PREFIX,
            CLAIM_CHECK_THRESHOLD_BYTES,
            MESSAGE_ENVELOPE));
    return List.copyOf(all);
  }
}
