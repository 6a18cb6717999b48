package dev.lambdaoutbox.consumer;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.io.PrintStream;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Consumes outbox events in an SQS-triggered Lambda, each exactly once per consumer: every record
 * runs through the inbox in a transaction of its own, and the response names only the records that
 * failed, so SQS redelivers those and no others.
 *
 * <pre>{@code
 * SqsInboxConsumer consumer = SqsInboxConsumer.builder()
 *     .jdbi(jdbi)
 *     .consumerName("shop-service")
 *     .handler((handle, event) -> reservations.apply(handle, event.payload(ReservationCreated.class)))
 *     .build();
 *
 * public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
 *   return consumer.handle(event);
 * }
 * }</pre>
 *
 * <p>For each record, in order:
 *
 * <ol>
 *   <li>the event is read from the record: with raw message delivery from its message attributes
 *       and body, otherwise from the SNS notification in its body. A record without an event id (or
 *       another outbox attribute) fails and is logged at ERROR, naming what is missing. A body that
 *       is a claim check (an S3 payload pointer, marked by the {@code ExtendedPayloadSize}
 *       attribute) is replaced by the object it points to, read with the {@linkplain Builder#s3 S3
 *       client}; when the object cannot be read the record fails (WARN) and comes back;
 *   <li>a transaction begins; the event id is recorded in the inbox for this consumer name; if it
 *       was recorded before, the record succeeds without running the handler (a redelivery);
 *   <li>otherwise the handler runs; it returns, and the transaction commits; or it throws, the
 *       transaction rolls back, and the record fails (logged at WARN with the event id).
 * </ol>
 *
 * <p>On a FIFO queue (its ARN ends in {@code .fifo}) the first failure ends the batch: the failed
 * record and every later one are reported, so SQS keeps their order.
 *
 * <p>The event source mapping must have {@code FunctionResponseTypes: [ReportBatchItemFailures]},
 * or Lambda ignores the response and redelivers the whole batch whenever the function fails (the
 * inbox still absorbs what succeeded).
 */
public interface SqsInboxConsumer {
  static Builder builder() {
    return new Builder();
  }

  /**
   * Processes the batch and returns the records to redeliver. Throws only when no database
   * connection can be had at all, which fails the whole invocation and so redelivers the batch.
   */
  SQSBatchResponse handle(SQSEvent event);

  /**
   * Configures an {@link SqsInboxConsumer}; {@code jdbi}, {@code consumerName} and {@code handler}
   * are required.
   */
  final class Builder {
    Jdbi jdbi;
    String consumerName;
    InboundEventHandler handler;
    OutboxTables tables = OutboxTables.defaults();
    PrintStream logOutput = System.out;
    S3Client s3;

    private Builder() {}

    /** The consumer's database, where the inbox table and its business tables are. */
    public Builder jdbi(Jdbi jdbi) {
      this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
      return this;
    }

    /**
     * The name the inbox records processed events under: one per consuming service, stable across
     * deployments. Two consumers of the same events need two names, or one would skip what the
     * other processed.
     */
    public Builder consumerName(String consumerName) {
      if (consumerName == null || consumerName.isBlank()) {
        throw new IllegalArgumentException("consumerName: must not be blank");
      }
      if (consumerName.length() > OutboxEvent.MAX_NAME_LENGTH) {
        throw new IllegalArgumentException(
            "consumerName: has "
                + consumerName.length()
                + " characters; at most "
                + OutboxEvent.MAX_NAME_LENGTH
                + " are allowed");
      }
      this.consumerName = consumerName;
      return this;
    }

    /** What to do with each event, once. */
    public Builder handler(InboundEventHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** The outbox tables' prefix, when the inbox table has one. Default: none. */
    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /**
     * The S3 client that reads payloads stored in S3 (a claim check: the body is a payload pointer
     * and the {@code ExtendedPayloadSize} attribute gives the payload's size). Needed only when
     * such messages arrive; without it each of them fails, naming its bucket and key. Default:
     * none.
     */
    public Builder s3(S3Client s3) {
      this.s3 = Objects.requireNonNull(s3, "s3");
      return this;
    }

    /** Where the JSON log lines go; standard output by default, where Lambda collects them. */
    public Builder logOutput(PrintStream logOutput) {
      this.logOutput = Objects.requireNonNull(logOutput, "logOutput");
      return this;
    }

    /**
     * The consumer.
     *
     * @throws IllegalStateException naming the first required setting that is missing
     */
    public SqsInboxConsumer build() {
      if (jdbi == null) {
        throw new IllegalStateException("jdbi: is required (the consumer's database)");
      }
      if (consumerName == null) {
        throw new IllegalStateException(
            "consumerName: is required (the name the inbox records processed events under)");
      }
      if (handler == null) {
        throw new IllegalStateException("handler: is required (what to do with each event)");
      }
      return new JdbiSqsInboxConsumer(this);
    }
  }
}
