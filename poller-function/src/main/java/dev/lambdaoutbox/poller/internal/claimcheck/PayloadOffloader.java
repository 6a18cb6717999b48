package dev.lambdaoutbox.poller.internal.claimcheck;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.poller.internal.envelope.MessageEnvelope;
import dev.lambdaoutbox.poller.internal.log.LogFields;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PayloadPointer;
import dev.lambdaoutbox.store.FullPayload;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Stores a message's payload in the claim-check bucket and returns the message carrying a pointer
 * instead. A payload the claim returned cut (over 256 KiB) is first read whole from the outbox
 * ({@link OutboxStore#fullPayload}), in pieces, up to {@link #MAX_PAYLOAD_BYTES}, the memory one
 * payload may take. What becomes of a row that cannot be offloaded:
 *
 * <ul>
 *   <li>its payload over {@link #MAX_PAYLOAD_BYTES}: {@link Refused}, dead-lettered as too large;
 *   <li>the upload failed (bucket missing, access denied, S3 down or slow): {@link Waiting}, tried
 *       again later without spending a retry, the reason naming the bucket;
 *   <li>the row left the outbox meanwhile (its lease lost): {@link Waiting}, and the completion,
 *       which finds it no longer held, leaves it alone.
 * </ul>
 */
public final class PayloadOffloader {
  /**
   * The largest payload the claim check reads and stores: what the payload column holds on MariaDB
   * and MySQL, the most the writer accepts ({@link MessageSize#MAX_STORED_PAYLOAD_BYTES}); in
   * memory it takes at most twice that as text and once more as bytes.
   */
  public static final long MAX_PAYLOAD_BYTES = MessageSize.MAX_STORED_PAYLOAD_BYTES;

  private final ClaimCheck claimCheck;
  private final OutboxStore store;
  private final PayloadUploader uploader;
  private final JsonLogger log;
  private final MessageEnvelope envelope;

  public PayloadOffloader(
      ClaimCheck claimCheck, OutboxStore store, PayloadUploader uploader, JsonLogger log) {
    this(claimCheck, store, uploader, log, MessageEnvelope.OUTBOX);
  }

  /**
   * @param envelope what a message's body is: a payload read whole from the outbox is stored as the
   *     body its message would have carried
   */
  public PayloadOffloader(
      ClaimCheck claimCheck,
      OutboxStore store,
      PayloadUploader uploader,
      JsonLogger log,
      MessageEnvelope envelope) {
    this.claimCheck = Objects.requireNonNull(claimCheck, "claimCheck");
    this.store = Objects.requireNonNull(store, "store");
    this.uploader = Objects.requireNonNull(uploader, "uploader");
    this.log = log.forClass(PayloadOffloader.class);
    this.envelope = Objects.requireNonNull(envelope, "envelope");
  }

  /** What offloading one message came to. */
  public sealed interface Result {}

  /** Stored: the message to send, carrying the pointer. */
  public record Offloaded(OutboundMessage message) implements Result {}

  /** Never storable: dead-letter the row with this code and reason. */
  public record Refused(String code, String reason) implements Result {}

  /** Not stored this time: the row waits, no retry spent, with this code and reason. */
  public record Waiting(String code, String reason) implements Result {}

  /** Whether {@code message} goes through the claim check: over its limit, or its threshold. */
  public boolean applies(OutboundMessage message) {
    return message.tooLarge() || claimCheck.overThreshold(message.row().payloadBytes());
  }

  /** Stores {@code message}'s payload and returns the message with the pointer. */
  public Result offload(OutboundMessage message, String tooLargeCode) {
    OutboxMessage row = message.row();
    String payload;
    if (row.payloadBytes() <= MessageSize.MAX_BYTES
        && Utf8.length(row.payload()) == row.payloadBytes()) {
      payload = row.payload(); // the claim returned it whole
    } else {
      switch (store.fullPayload(row.id(), MAX_PAYLOAD_BYTES)) {
        case FullPayload.Whole whole ->
            payload = envelope.body(row, message.destination(), whole.text());
        case FullPayload.OverBudget over -> {
          return new Refused(
              tooLargeCode,
              "the message has "
                  + over.bytes()
                  + " bytes of payload; the claim check stores payloads of at most "
                  + over.maxBytes()
                  + " bytes (the most the outbox's payload column holds on MariaDB and MySQL,"
                  + " and the memory the poller gives one payload)");
        }
        case FullPayload.Gone gone -> {
          return new Waiting(
              "ROW_GONE", "the row left the outbox while its payload was being read whole");
        }
      }
    }
    byte[] content = payload.getBytes(StandardCharsets.UTF_8);
    String key = claimCheck.key(row.id());
    try {
      uploader.put(claimCheck.bucket(), key, content);
    } catch (RuntimeException e) {
      UploadFailures.UploadFailure failure = UploadFailures.of(e, claimCheck.bucket(), key);
      var fields =
          LogFields.of(
              "eventId", row.id().toString(),
              "bucket", claimCheck.bucket(),
              "key", key,
              "errorCode", failure.code());
      if (failure.misconfigured()) {
        log.warn(
            "the claim-check bucket refused a payload; the row waits: " + failure.reason(), fields);
      } else {
        log.info("a payload could not be stored in the claim-check bucket; the row waits", fields);
      }
      return new Waiting(failure.code(), failure.reason());
    }
    return new Offloaded(
        message.withPointer(new PayloadPointer(claimCheck.bucket(), key, content.length)));
  }
}
