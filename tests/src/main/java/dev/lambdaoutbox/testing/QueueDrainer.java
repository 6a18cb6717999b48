package dev.lambdaoutbox.testing;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A consumer that empties a queue while it fills: threads that receive (long polling), record each
 * message's {@code eventId} attribute and delete what they received. It keeps the queue shallow (an
 * emulator's SQS may slow down with a queue's depth) and counts copies per event id, so a test sees
 * what arrived at least once and what arrived more than once.
 *
 * <p>It rides out the endpoint going away: a failed call is counted and tried again after a short
 * pause, so it goes on receiving once the endpoint (and the queue, by the same URL) is back.
 */
public final class QueueDrainer implements AutoCloseable {
  private static final Duration PAUSE_AFTER_ERROR = Duration.ofMillis(250);

  private final SqsClient sqs;
  private final String queueUrl;
  private final Map<String, AtomicInteger> copies = new ConcurrentHashMap<>();
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong failedCalls = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new CopyOnWriteArrayList<>();

  /**
   * Starts {@code threads} consumers of {@code queueUrl} at {@code aws} (none is fine: see {@link
   * #add}), on a client of their own with a generous timeout (an emulator under load may take
   * seconds to answer; a receive given up would hide its messages until their visibility timeout
   * ends).
   */
  public QueueDrainer(AwsEndpoint aws, String queueUrl, int threads) {
    Duration timeout = Duration.ofSeconds(60);
    this.sqs =
        aws.configure(SqsClient.builder())
            .httpClientBuilder(
                UrlConnectionHttpClient.builder()
                    .connectionTimeout(Duration.ofSeconds(2))
                    .socketTimeout(timeout))
            .overrideConfiguration(o -> o.apiCallTimeout(timeout))
            .build();
    this.queueUrl = queueUrl;
    add(threads);
  }

  /**
   * Starts {@code more} consumers: e.g. once a benchmark's run has ended, so that consumers take no
   * CPU from the server the run measures.
   */
  public void add(int more) {
    for (int i = 1; i <= more; i++) {
      String name = "queue-drainer-" + (threads.size() + 1);
      threads.add(Thread.ofPlatform().daemon().name(name).start(this::drain));
    }
  }

  /** Messages received so far, copies included. */
  public long messages() {
    return messages.get();
  }

  /** Distinct event ids received so far. */
  public int distinctEvents() {
    return copies.size();
  }

  /** The distinct event ids received so far. */
  public Set<String> eventIds() {
    return new HashSet<>(copies.keySet());
  }

  /** Event ids received more than once, with how many times each came. */
  public Map<String, Integer> duplicates() {
    Map<String, Integer> duplicates = new TreeMap<>();
    copies.forEach(
        (id, n) -> {
          if (n.get() > 1) {
            duplicates.put(id, n.get());
          }
        });
    return duplicates;
  }

  /** Calls that failed (the endpoint or the queue was gone) and were tried again. */
  public long failedCalls() {
    return failedCalls.get();
  }

  /** Which of {@code ids} have not arrived (yet). */
  public Set<String> missing(Collection<String> ids) {
    Set<String> missing = new HashSet<>(ids);
    missing.removeAll(copies.keySet());
    return missing;
  }

  /** Waits until every one of {@code ids} arrived, or {@code atMost} passed; true when all did. */
  public boolean awaitEvents(Collection<String> ids, Duration atMost) throws InterruptedException {
    return await(() -> copies.keySet().containsAll(ids), atMost);
  }

  /** Waits until {@code count} distinct events arrived, or {@code atMost} passed. */
  public boolean awaitDistinctEvents(int count, Duration atMost) throws InterruptedException {
    return await(() -> copies.size() >= count, atMost);
  }

  /** Waits until {@code count} messages arrived, or {@code atMost} passed. */
  public boolean awaitMessages(long count, Duration atMost) throws InterruptedException {
    return await(() -> messages.get() >= count, atMost);
  }

  /**
   * E.g. "2,000 distinct events in 2,003 messages (3 events came twice or more; 12 calls failed)".
   */
  public String summary() {
    int duplicated = duplicates().size();
    return String.format(
        "%,d distinct events in %,d messages (%,d %s twice or more; %,d receive/delete calls"
            + " failed)",
        copies.size(),
        messages.get(),
        duplicated,
        duplicated == 1 ? "event came" : "events came",
        failedCalls.get());
  }

  private void drain() {
    while (running.get()) {
      try {
        List<Message> batch =
            sqs.receiveMessage(
                    r ->
                        r.queueUrl(queueUrl)
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
            copies.computeIfAbsent(id.stringValue(), k -> new AtomicInteger()).incrementAndGet();
          }
        }
        sqs.deleteMessageBatch(
            r ->
                r.queueUrl(queueUrl)
                    .entries(
                        batch.stream()
                            .map(
                                m ->
                                    DeleteMessageBatchRequestEntry.builder()
                                        .id(m.messageId())
                                        .receiptHandle(m.receiptHandle())
                                        .build())
                            .toList()));
      } catch (SdkException e) {
        // The endpoint or the queue is gone for now (a test restarting it); try again shortly.
        failedCalls.incrementAndGet();
        sleep(PAUSE_AFTER_ERROR);
      }
    }
  }

  private static boolean await(BooleanSupplier done, Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(100);
    }
    return true;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the consumers, after their current call. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join();
    }
    sqs.close();
  }
}
