package dev.lambdaoutbox.spring;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.lambdaoutbox.consumer.SqsInboxConsumer;
import dev.lambdaoutbox.writer.PollerWaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The outbox's Micrometer meters (docs/spring.md, "Meters"). Spring Boot binds the writer's and the
 * waker's to every registry it configures ({@link OutboxAutoConfiguration}); elsewhere, call {@link
 * #bind} yourself.
 */
public final class OutboxMeters {
  /** Counter: events appended (their transactions may still roll back). */
  public static final String APPENDED = "outbox.writer.appended";

  /** Counter: appends refused: no transaction, an invalid event, a taken idempotency key. */
  public static final String REFUSED = "outbox.writer.refused";

  /** Counter: appends the database failed. */
  public static final String FAILED = "outbox.writer.failed";

  /**
   * Counter, tag {@code outcome}: wake-ups asked for after commits ({@code requested}), accepted by
   * Lambda ({@code sent}), and refused or unsent ({@code failed}).
   */
  public static final String WAKE_UPS = "outbox.waker.wake.ups";

  /**
   * Counter, tags {@code consumer} and {@code outcome}: SQS records the consumer applied or skipped
   * as redeliveries ({@code succeeded}), and those it reported for redelivery ({@code failed}).
   */
  public static final String CONSUMER_RECORDS = "outbox.consumer.records";

  /** Timer, tag {@code consumer}: each batch the consumer handled. */
  public static final String CONSUMER_BATCHES = "outbox.consumer.batches";

  private OutboxMeters() {}

  /** Registers the counters of {@code outbox} with {@code registry}. */
  public static void bind(MeterRegistry registry, TransactionalOutbox outbox) {
    counter(registry, APPENDED, outbox, o -> o.counts().appended(), "events appended");
    counter(registry, REFUSED, outbox, o -> o.counts().refused(), "appends refused");
    counter(registry, FAILED, outbox, o -> o.counts().failed(), "appends the database failed");
  }

  /** Registers the counters of {@code waker} with {@code registry}. */
  public static void bind(MeterRegistry registry, PollerWaker waker) {
    FunctionCounter.builder(WAKE_UPS, waker, w -> w.counts().requested())
        .tag("outcome", "requested")
        .description("wake-ups asked for after commits")
        .register(registry);
    FunctionCounter.builder(WAKE_UPS, waker, w -> w.counts().sent())
        .tag("outcome", "sent")
        .description("wake-ups Lambda accepted")
        .register(registry);
    FunctionCounter.builder(WAKE_UPS, waker, w -> w.counts().failed())
        .tag("outcome", "failed")
        .description("wake-ups that could not be sent; their rows wait for the schedule")
        .register(registry);
  }

  /**
   * {@code consumer}, counting its records and timing its batches under the tag {@code consumer} =
   * {@code consumerName}.
   */
  public static SqsInboxConsumer metered(
      SqsInboxConsumer consumer, MeterRegistry registry, String consumerName) {
    Objects.requireNonNull(consumer, "consumer");
    Counter succeeded =
        Counter.builder(CONSUMER_RECORDS)
            .tags("consumer", consumerName, "outcome", "succeeded")
            .description("records applied, or skipped as redeliveries")
            .register(registry);
    Counter failed =
        Counter.builder(CONSUMER_RECORDS)
            .tags("consumer", consumerName, "outcome", "failed")
            .description("records reported to SQS for redelivery")
            .register(registry);
    Timer batches =
        Timer.builder(CONSUMER_BATCHES)
            .tag("consumer", consumerName)
            .description("batches handled")
            .register(registry);
    return event -> {
      SQSBatchResponse response = batches.record(() -> consumer.handle(event));
      int records = recordsOf(event);
      int failures =
          response.getBatchItemFailures() == null ? 0 : response.getBatchItemFailures().size();
      failed.increment(failures);
      succeeded.increment(Math.max(0, records - failures));
      return response;
    };
  }

  private static int recordsOf(SQSEvent event) {
    return event.getRecords() == null ? 0 : event.getRecords().size();
  }

  private static <T> void counter(
      MeterRegistry registry,
      String name,
      T source,
      ToDoubleFunction<T> count,
      String description) {
    FunctionCounter.builder(name, source, count).description(description).register(registry);
  }
}
