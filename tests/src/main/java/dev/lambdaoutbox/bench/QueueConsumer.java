package dev.lambdaoutbox.bench;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Receives and deletes a queue's messages on background threads, counting messages and distinct
 * {@code eventId} attributes: to keep the queue shallow while a benchmark fills it, or to check
 * afterwards that every event arrived.
 */
final class QueueConsumer implements AutoCloseable {
  private final SqsClient sqs;
  private final String queue;
  private final Set<String> eventIds = ConcurrentHashMap.newKeySet();
  private final AtomicLong messages = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new CopyOnWriteArrayList<>();

  /** Starts {@code threads} consuming threads (none is fine: see {@link #add}). */
  QueueConsumer(SqsClient sqs, String queue, int threads) {
    this.sqs = sqs;
    this.queue = queue;
    add(threads);
  }

  /** Starts {@code more} consuming threads. */
  void add(int more) {
    for (int i = 1; i <= more; i++) {
      String name = "queue-consumer-" + (threads.size() + 1);
      threads.add(Thread.ofPlatform().daemon().name(name).start(this::consume));
    }
  }

  /** Messages received so far. */
  long received() {
    return messages.get();
  }

  private void consume() {
    while (running.get()) {
      List<Message> batch =
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(queue)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .messageAttributeNames("eventId"))
              .messages();
      if (batch.isEmpty()) {
        continue;
      }
      for (Message m : batch) {
        messages.incrementAndGet();
        var id = m.messageAttributes().get("eventId");
        if (id != null) {
          eventIds.add(id.stringValue());
        }
      }
      sqs.deleteMessageBatch(
          r ->
              r.queueUrl(queue)
                  .entries(
                      batch.stream()
                          .map(
                              m ->
                                  DeleteMessageBatchRequestEntry.builder()
                                      .id(m.messageId())
                                      .receiptHandle(m.receiptHandle())
                                      .build())
                          .toList()));
    }
  }

  /** Waits until {@code expected} distinct events came (or a minute passes without progress). */
  String await(int expected) throws InterruptedException {
    await(eventIds::size, expected, Duration.ofMinutes(10));
    return String.format("%,d distinct events in %,d messages", eventIds.size(), messages.get());
  }

  /** Waits until {@code expected} messages came (or a minute passes without progress). */
  void awaitMessages(long expected, Duration atMost) throws InterruptedException {
    await(messages::get, expected, atMost);
  }

  private void await(LongSupplier count, long expected, Duration atMost)
      throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    long last = -1;
    long lastChange = System.nanoTime();
    while (count.getAsLong() < expected && System.nanoTime() < deadline) {
      if (messages.get() != last) {
        last = messages.get();
        lastChange = System.nanoTime();
      } else if (System.nanoTime() - lastChange > Duration.ofMinutes(1).toNanos()) {
        return;
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join();
    }
  }
}
