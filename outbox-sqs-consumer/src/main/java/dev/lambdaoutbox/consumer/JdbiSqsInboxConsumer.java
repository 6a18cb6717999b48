package dev.lambdaoutbox.consumer;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import dev.lambdaoutbox.consumer.internal.PartialBatch;
import dev.lambdaoutbox.consumer.internal.PayloadUnavailableException;
import dev.lambdaoutbox.consumer.internal.S3PayloadReader;
import dev.lambdaoutbox.consumer.internal.SqsRecordReader;
import dev.lambdaoutbox.consumer.internal.UnreadableRecordException;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.writer.Inbox;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** The {@link SqsInboxConsumer}: one Jdbi handle per batch, one transaction per record. */
final class JdbiSqsInboxConsumer implements SqsInboxConsumer {
  private final Jdbi jdbi;
  private final String consumerName;
  private final InboundEventHandler handler;
  private final S3PayloadReader payloads;
  private final Inbox inbox;
  private final JsonLogger log;

  JdbiSqsInboxConsumer(Builder b) {
    this.jdbi = b.jdbi;
    this.consumerName = b.consumerName;
    this.handler = b.handler;
    this.payloads = new S3PayloadReader(b.s3, b.claimCheckLocations, b.claimCheckMaxBytes);
    this.inbox = Inbox.create(b.tables);
    this.log =
        new JsonLogger(
            b.consumerName,
            SqsInboxConsumer.class,
            JsonLogger.Level.INFO,
            b.logOutput,
            Clock.systemUTC());
  }

  @Override
  public SQSBatchResponse handle(SQSEvent event) {
    try (Handle handle = jdbi.open()) {
      PartialBatch.Result result =
          PartialBatch.run(event.getRecords(), record -> process(handle, record));
      for (SQSMessage skipped : result.notAttempted()) {
        log.info(
            "not attempted: an earlier record of this FIFO batch failed; SQS delivers it again",
            fields(skipped, null));
      }
      return result.response();
    }
  }

  /** True when the record was applied now or before; false when it must be delivered again. */
  private boolean process(Handle handle, SQSMessage record) {
    InboundEvent event;
    try {
      event = SqsRecordReader.read(record, payloads);
    } catch (PayloadUnavailableException e) {
      log.log(
          JsonLogger.Level.WARN,
          e.getMessage() + "; the record failed and SQS delivers it again",
          fields(record, null),
          e.getCause());
      return false;
    } catch (UnreadableRecordException e) {
      log.log(
          JsonLogger.Level.ERROR,
          "unreadable record: " + e.getMessage() + "; it fails on every delivery",
          fields(record, null),
          null);
      return false;
    }
    try {
      handle.useTransaction(
          h ->
              inbox.processOnce(
                  h, consumerName, event.eventId().toString(), () -> handler.handle(h, event)));
      return true;
    } catch (Exception e) {
      log.log(
          JsonLogger.Level.WARN,
          "record failed; its transaction was rolled back and SQS delivers it again",
          fields(record, event),
          e);
      return false;
    }
  }

  private static Map<String, Object> fields(SQSMessage record, InboundEvent event) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("messageId", record.getMessageId());
    if (event != null) {
      fields.put("eventId", event.eventId().toString());
      fields.put("eventType", event.eventType());
    }
    Map<String, String> attributes = record.getAttributes();
    if (attributes != null && attributes.containsKey("ApproximateReceiveCount")) {
      fields.put("receiveCount", attributes.get("ApproximateReceiveCount"));
    }
    return fields;
  }
}
