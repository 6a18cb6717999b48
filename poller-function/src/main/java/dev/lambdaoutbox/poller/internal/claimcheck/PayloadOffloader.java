package dev.lambdaoutbox.poller.internal.claimcheck;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.poller.internal.envelope.MessageEnvelope;
import dev.lambdaoutbox.poller.internal.log.LogFields;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PayloadPointer;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stores messages' payloads in the claim-check bucket and returns the messages carrying pointers
 * instead. A round's uploads run side by side ({@link #start}), at most {@code concurrency} at a
 * time, while the round publishes its other rows. A payload the claim returned cut is first read
 * whole from the outbox ({@link OutboxStore#fullPayload}), one such read at a time.
 *
 * <p>A row that cannot be offloaded: over {@link #MAX_PAYLOAD_BYTES}, {@link Refused}
 * (dead-lettered); the upload failed, or the row left the outbox meanwhile, {@link Waiting} (tried
 * again later, no retry spent; the round's uploads not yet started wait too, so a failing bucket is
 * asked a few times per round, not once per row); too little time left ({@link
 * PublishGate#uploadRefusal}), {@link NotStarted} (released).
 */
public final class PayloadOffloader {
  /**
   * The largest payload the claim check reads and stores: what the payload column holds on MariaDB
   * and MySQL, the most the writer accepts ({@link MessageSize#MAX_STORED_PAYLOAD_BYTES}); in
   * memory it takes at most twice that as text and once more as bytes.
   */
  public static final long MAX_PAYLOAD_BYTES = MessageSize.MAX_STORED_PAYLOAD_BYTES;

  /**
   * The payload bytes a poller's uploads hold at once: two of the largest, or many smaller ones
   * side by side (with text and bytes, about 100 MB at most of the function's memory).
   */
  static final int MAX_BYTES_IN_FLIGHT = (int) (2 * MAX_PAYLOAD_BYTES);

  /** How long an upload thread stays idle before it ends: most rounds store nothing. */
  private static final long IDLE_THREAD_SECONDS = 30;

  private final ClaimCheck claimCheck;
  private final OutboxStore store;
  private final PayloadUploader uploader;
  private final JsonLogger log;
  private final ThreadPoolExecutor threads;
  private final Semaphore bytesInFlight = new Semaphore(MAX_BYTES_IN_FLIGHT);
  private final Object wholePayloadReads = new Object();
  private final MessageEnvelope envelope;

  /**
   * @param concurrency uploads in flight at once ({@code OUTBOX_PUBLISH_CONCURRENCY})
   * @param envelope what a message's body is: a payload read whole from the outbox is stored as the
   *     body its message would have carried
   */
  public PayloadOffloader(
      ClaimCheck claimCheck,
      OutboxStore store,
      PayloadUploader uploader,
      int concurrency,
      JsonLogger log,
      MessageEnvelope envelope) {
    this.claimCheck = Objects.requireNonNull(claimCheck, "claimCheck");
    this.store = Objects.requireNonNull(store, "store");
    this.uploader = Objects.requireNonNull(uploader, "uploader");
    this.log = log.forClass(PayloadOffloader.class);
    AtomicInteger next = new AtomicInteger();
    this.threads =
        new ThreadPoolExecutor(
            concurrency,
            concurrency,
            IDLE_THREAD_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, "outbox-claim-check-" + next.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    threads.allowCoreThreadTimeOut(true);
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

  /** Not started for lack of time: the row is not sent, as {@code refusal} says. */
  public record NotStarted(Delivery.Refusal refusal) implements Result {}

  /** Whether {@code message} goes through the claim check: over its limit, or its threshold. */
  public boolean applies(OutboundMessage message) {
    return message.tooLarge() || claimCheck.overThreshold(message.row().payloadBytes());
  }

  /**
   * Starts storing the payloads of {@code messages}, each only while {@code gate} leaves time for
   * it and for the publish after it.
   *
   * @param tooLargeCode the code a payload too large to store is dead-lettered with
   */
  public Uploads start(List<OutboundMessage> messages, String tooLargeCode, PublishGate gate) {
    Uploads uploads = new Uploads();
    for (OutboundMessage message : messages) {
      uploads.results.put(
          message.id(), threads.submit(() -> offload(message, tooLargeCode, gate, uploads)));
    }
    return uploads;
  }

  /** One round's uploads, under way. */
  public static final class Uploads {
    private final Map<UUID, Future<Result>> results = new LinkedHashMap<>();

    /** The first failure of this round's uploads: the bucket is not asked again this round. */
    private final AtomicReference<UploadFailures.UploadFailure> failed = new AtomicReference<>();

    private Uploads() {}

    /**
     * What each upload came to, by event id, once all have ended. Each ends within a call's timeout
     * of starting, and none starts once the gate refuses, so this waits at most until the time the
     * gate keeps for the publish after them.
     *
     * @throws RuntimeException an upload's own unexpected failure (reading the payload whole), as
     *     it was thrown
     */
    public Map<UUID, Result> await() {
      Map<UUID, Result> done = new LinkedHashMap<>();
      List<RuntimeException> thrown = new ArrayList<>();
      for (Map.Entry<UUID, Future<Result>> upload : results.entrySet()) {
        try {
          done.put(upload.getKey(), upload.getValue().get());
        } catch (ExecutionException e) {
          thrown.add(
              e.getCause() instanceof RuntimeException r
                  ? r
                  : new IllegalStateException("a claim-check upload failed", e.getCause()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(
              "interrupted while storing payloads in S3; the rows stay leased and are delivered"
                  + " again after the lease",
              e);
        }
      }
      if (!thrown.isEmpty()) {
        thrown.subList(1, thrown.size()).forEach(thrown.get(0)::addSuppressed);
        throw thrown.get(0);
      }
      return done;
    }
  }

  private Result offload(
      OutboundMessage message, String tooLargeCode, PublishGate gate, Uploads round) {
    UploadFailures.UploadFailure earlier = round.failed.get();
    if (earlier != null) {
      return notAttempted(earlier);
    }
    Delivery.Refusal refusal = gate.uploadRefusal();
    if (refusal != null) {
      return new NotStarted(refusal);
    }
    OutboxMessage row = message.row();
    int held = (int) Math.min(Math.max(row.payloadBytes(), 1), MAX_BYTES_IN_FLIGHT);
    try {
      bytesInFlight.acquire(held);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new NotStarted(interrupted());
    }
    try {
      return store(message, tooLargeCode, gate, round);
    } finally {
      bytesInFlight.release(held);
    }
  }

  private Result store(
      OutboundMessage message, String tooLargeCode, PublishGate gate, Uploads round) {
    OutboxMessage row = message.row();
    String payload;
    if (row.payloadBytes() <= MessageSize.MAX_BYTES
        && Utf8.length(row.payload()) == row.payloadBytes()) {
      payload = row.payload(); // the claim returned it whole
    } else {
      FullPayload whole;
      synchronized (wholePayloadReads) {
        whole = store.fullPayload(row.id(), MAX_PAYLOAD_BYTES);
      }
      switch (whole) {
        case FullPayload.Whole w -> payload = envelope.body(row, message.destination(), w.text());
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
      // Reading it may have taken a while: the upload and the publish must still fit.
      Delivery.Refusal refusal = gate.uploadRefusal();
      if (refusal != null) {
        return new NotStarted(refusal);
      }
      UploadFailures.UploadFailure earlier = round.failed.get();
      if (earlier != null) {
        return notAttempted(earlier);
      }
    }
    byte[] content = payload.getBytes(StandardCharsets.UTF_8);
    String key = claimCheck.key(message.destination(), row.id(), content);
    try {
      uploader.put(claimCheck.bucket(), claimCheck.bucketOwner(), key, content);
    } catch (RuntimeException e) {
      UploadFailures.UploadFailure failure = UploadFailures.of(e, claimCheck.bucket(), key);
      round.failed.compareAndSet(null, failure);
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
        message.withPointer(new PayloadPointer(claimCheck.bucket(), key, content.length), payload));
  }

  /** A row whose upload was not started: the bucket failed earlier in the round. */
  private static Waiting notAttempted(UploadFailures.UploadFailure earlier) {
    return new Waiting(
        earlier.code(),
        "not attempted: the claim-check bucket failed earlier in this round ("
            + earlier.reason()
            + ")");
  }

  private static Delivery.Refusal interrupted() {
    return new Delivery.Refusal(
        Delivery.Why.TIME_SHORT, "not stored: the invocation was interrupted first");
  }
}
