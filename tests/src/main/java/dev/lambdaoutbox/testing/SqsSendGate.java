package dev.lambdaoutbox.testing;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * Watches an SQS client's {@code SendMessageBatch} calls: how many are in flight, and which {@code
 * eventId}s the endpoint acknowledged, when. On demand it holds new calls before they are sent, as
 * a slow network would; it changes no request and no response. Add it to the client with {@code
 * overrideConfiguration(o -> o.addExecutionInterceptor(gate))}.
 *
 * <p>A test that kills an endpoint keeping messages in memory only needs it: holding the calls lets
 * the consumer catch up before the kill, and what the endpoint acknowledged and then took down with
 * it, lost by the emulator and not by the publisher, is told apart from what the publisher never
 * got acknowledged.
 */
public final class SqsSendGate implements ExecutionInterceptor {
  private final Object lock = new Object();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Map<String, Long> firstAcknowledged = new ConcurrentHashMap<>();
  private boolean held;

  /** Holds calls not yet sent until the returned hold is closed; calls in flight go on. */
  public Hold hold() {
    synchronized (lock) {
      held = true;
    }
    return () -> {
      synchronized (lock) {
        held = false;
        lock.notifyAll();
      }
    };
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    if (!(context.request() instanceof SendMessageBatchRequest)) {
      return;
    }
    synchronized (lock) {
      while (held) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      inFlight.incrementAndGet();
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    if (!(context.request() instanceof SendMessageBatchRequest request)) {
      return;
    }
    inFlight.decrementAndGet();
    long now = System.nanoTime();
    Map<String, String> eventIdByEntry = new HashMap<>();
    for (SendMessageBatchRequestEntry entry : request.entries()) {
      MessageAttributeValue id = entry.messageAttributes().get("eventId");
      if (id != null) {
        eventIdByEntry.put(entry.id(), id.stringValue());
      }
    }
    for (SendMessageBatchResultEntry ok :
        ((SendMessageBatchResponse) context.response()).successful()) {
      String eventId = eventIdByEntry.get(ok.id());
      if (eventId != null) {
        firstAcknowledged.putIfAbsent(eventId, now);
      }
    }
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    if (context.request() instanceof SendMessageBatchRequest) {
      inFlight.decrementAndGet();
    }
  }

  /** {@code SendMessageBatch} calls sent (past the hold) and not yet answered or failed. */
  public int inFlight() {
    return inFlight.get();
  }

  /** Event ids the endpoint acknowledged so far. */
  public Set<String> acknowledged() {
    return new HashSet<>(firstAcknowledged.keySet());
  }

  /** Event ids of {@code candidates} the endpoint first acknowledged before {@code nanoTime}. */
  public Set<String> acknowledgedBefore(Collection<String> candidates, long nanoTime) {
    Set<String> acknowledged = new HashSet<>();
    for (String id : candidates) {
      Long at = firstAcknowledged.get(id);
      if (at != null && at - nanoTime < 0) {
        acknowledged.add(id);
      }
    }
    return acknowledged;
  }
}
