package dev.lambdaoutbox.consumer;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.lambdaoutbox.consumer.internal.ClaimCheckLocation;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Consumes outbox events in an SQS-triggered Lambda, each once per consumer name: each record's
 * event id is recorded in the inbox and its handler run in one transaction (a redelivery is
 * skipped), and the response names only the records that failed, so SQS redelivers those alone.
 *
 * <pre>{@code
 * SqsInboxConsumer consumer = SqsInboxConsumer.builder()
 *     .jdbi(jdbi)
 *     .consumerName("shop-service")
 *     .handler((handle, event) -> reservations.apply(handle, event.payload(ReservationCreated.class)))
 *     .build();
 * // in handleRequest(SQSEvent event, Context context):  return consumer.handle(event);
 * }</pre>
 *
 * <p>A record without the outbox's attributes, or whose claim check is in no {@linkplain
 * Builder#claimCheckLocation location} given, fails at ERROR; a handler that throws rolls back and
 * fails its record; on a FIFO queue the first failure fails the rest of the batch. The event source
 * mapping needs {@code ReportBatchItemFailures}. docs/consuming.md says the whole of it.
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
    /**
     * The largest claim-checked payload a consumer reads by default: the most the outbox stores
     * ({@code OutboxWriter.MAX_CLAIM_CHECK_PAYLOAD_BYTES}).
     */
    public static final long DEFAULT_CLAIM_CHECK_MAX_BYTES = MessageSize.MAX_STORED_PAYLOAD_BYTES;

    /** The most {@link #claimCheckMaxBytes} may be. */
    public static final long MAX_CLAIM_CHECK_MAX_BYTES = 256L * 1024 * 1024;

    Jdbi jdbi;
    String consumerName;
    InboundEventHandler handler;
    OutboxTables tables = OutboxTables.defaults();
    PrintStream logOutput = System.out;
    S3Client s3;
    final List<ClaimCheckLocation> claimCheckLocations = new ArrayList<>();
    long claimCheckMaxBytes = DEFAULT_CLAIM_CHECK_MAX_BYTES;

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
     * and the {@code ExtendedPayloadSize} attribute gives the payload's size), with the consumer's
     * credentials; give it with at least one {@link #claimCheckLocation}. Needed only when such
     * messages arrive; without it each of them fails, naming its bucket and key. Default: none.
     */
    public Builder s3(S3Client s3) {
      this.s3 = Objects.requireNonNull(s3, "s3");
      return this;
    }

    /**
     * Where claim checks may point: objects in {@code bucket} under {@code keyPrefix}, the bucket
     * owned by the AWS account {@code bucketOwner} (sent as S3's {@code ExpectedBucketOwner}). A
     * pointer anywhere else fails its record unread, at ERROR: whoever may send to the queue
     * chooses the pointer, and the consumer's role may read more than the outbox's objects. Call it
     * once for each place (the outbox stack's {@code ClaimCheckBucketName} output and the prefix of
     * the destination this consumer's queue receives from, e.g. {@code
     * outbox-payloads/sns/123456789012/orders/}).
     *
     * @throws IllegalArgumentException naming an owner that is not 12 digits, a bucket name S3
     *     would refuse, or a prefix beginning with '/'
     */
    public Builder claimCheckLocation(String bucketOwner, String bucket, String keyPrefix) {
      claimCheckLocations.add(new ClaimCheckLocation(bucketOwner, bucket, keyPrefix));
      return this;
    }

    /**
     * The largest claim-checked payload read, in bytes: a pointer whose size attribute says more
     * fails its record unread, at ERROR. Default {@value #DEFAULT_CLAIM_CHECK_MAX_BYTES}, the most
     * the outbox stores; at most {@value #MAX_CLAIM_CHECK_MAX_BYTES}. The consumer holds one such
     * payload in memory at a time, once as bytes and once as text.
     */
    public Builder claimCheckMaxBytes(long maxBytes) {
      if (maxBytes < 1 || maxBytes > MAX_CLAIM_CHECK_MAX_BYTES) {
        throw new IllegalArgumentException(
            "claimCheckMaxBytes: must be 1 to " + MAX_CLAIM_CHECK_MAX_BYTES + ", was " + maxBytes);
      }
      this.claimCheckMaxBytes = maxBytes;
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
      if (s3 != null && claimCheckLocations.isEmpty()) {
        throw new IllegalStateException(
            "claimCheckLocation: is required with s3 (the bucket owner, bucket and key prefix"
                + " claim checks may point to; a pointer anywhere else is not read)");
      }
      if (s3 == null && !claimCheckLocations.isEmpty()) {
        throw new IllegalStateException(
            "s3: is required with claimCheckLocation (the client that reads claim checks)");
      }
      return new JdbiSqsInboxConsumer(this);
    }
  }
}
