package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.Schedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Settings and a schedule for drills where real time passes while pollers drain: short leases and
 * timeouts through the poller's own variables, and several pollers invoked over and over on the
 * real clock, each with its own connection and clients, as concurrent Lambda environments run.
 */
final class ScheduledPollers {
  /** The invocation's timeout (the Lambda function's). */
  static final Duration TIMEOUT = Duration.ofSeconds(20);

  private ScheduledPollers() {}

  /**
   * The poller's environment for a drill publishing to {@code queue}: the shortest lease allowed
   * (10 s), calls and connections that fail within seconds, default retries and backoff.
   */
  static PollerConfig config(PollerTestBed bed, String queue) {
    return bed.config(
        "OUTBOX_DEFAULT_DESTINATION", queue,
        "OUTBOX_LEASE_SECONDS", "10",
        "OUTBOX_PUBLISH_TIMEOUT_MS", "3000",
        "OUTBOX_SAFETY_MARGIN_MS", "1000",
        "OUTBOX_BATCH_SIZE", "50",
        "OUTBOX_PUBLISH_CONCURRENCY", "1",
        "OUTBOX_DB_CONNECT_TIMEOUT_MS", "2000",
        "OUTBOX_DB_STATEMENT_TIMEOUT_MS", "5000",
        "OUTBOX_DB_SOCKET_TIMEOUT_MS", "8000",
        "OUTBOX_LOG_LEVEL", "INFO");
  }

  /**
   * {@code pollers} handlers on the real clock, publishing through {@code sqs}, each invoked again
   * 200 ms after its last invocation ended.
   */
  static Schedule start(PollerTestBed bed, PollerConfig config, SqsClient sqs, int pollers) {
    List<Callable<PollSummary>> invokers = new ArrayList<>();
    for (int i = 0; i < pollers; i++) {
      PollerHandler handler = bed.realTimeHandler(config, sqs);
      invokers.add(() -> bed.invoke(handler, TIMEOUT));
    }
    return Schedule.start("poller", invokers, Duration.ofMillis(200));
  }
}
