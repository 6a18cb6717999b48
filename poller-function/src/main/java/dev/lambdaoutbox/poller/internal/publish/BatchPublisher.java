package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.failure.FailureClassifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Publishes messages in SNS, SQS and EventBridge batches: each destination's messages cut into
 * batches of at most ten entries and the destination's byte limit ({@link BatchPlanner}), the
 * batches of different destinations sent concurrently on a bounded pool, every entry of every
 * response reconciled ({@link BatchReconciler}).
 *
 * <p>A FIFO destination's batches go out one after another in claim order when two of its messages
 * share a message group, and once a message of a group fails, the group's later messages are held
 * back (not attempted) so they cannot overtake it. When every message has a group of its own
 * (always so with {@code OUTBOX_ORDERING=aggregate}, which claims one event per aggregate), nothing
 * can overtake anything, and its batches go out concurrently, as a standard destination's do. Once
 * a call shows a destination down, the gate stops further calls to it. Each call waits for the gate
 * to let it start at its destination's send rate, and the gate hears what it came back with. The
 * SDK's synchronous clients are thread-safe, so one client serves every thread.
 */
public final class BatchPublisher implements MessagePublisher {
  private final BatchSender sns;
  private final BatchSender sqs;
  private final BatchSender events;
  private final ExecutorService executor;

  /**
   * @param executor runs batch calls; its size bounds the calls in flight. Shut down by {@link
   *     #close()}.
   */
  public BatchPublisher(
      BatchSender sns, BatchSender sqs, BatchSender events, ExecutorService executor) {
    this.sns = Objects.requireNonNull(sns, "sns");
    this.sqs = Objects.requireNonNull(sqs, "sqs");
    this.events = Objects.requireNonNull(events, "events");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  @Override
  public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
    List<Callable<List<Delivery>>> tasks = new ArrayList<>();
    for (Map.Entry<String, List<OutboundMessage>> destination :
        BatchPlanner.byDestination(messages).entrySet()) {
      String target = destination.getKey();
      List<OutboundMessage> queue = destination.getValue();
      if (Destinations.isFifo(target) && sharesAGroup(queue)) {
        tasks.add(() -> sendInOrder(target, queue, gate));
      } else {
        for (List<OutboundMessage> batch : BatchPlanner.batches(queue)) {
          tasks.add(() -> sendBatch(target, batch, gate));
        }
      }
    }
    if (tasks.size() == 1) {
      return call(tasks.get(0));
    }
    List<Future<List<Delivery>>> futures = tasks.stream().map(executor::submit).toList();
    List<Delivery> deliveries = new ArrayList<>(messages.size());
    for (Future<List<Delivery>> future : futures) {
      deliveries.addAll(await(future));
    }
    return deliveries;
  }

  /**
   * A FIFO destination: batches one at a time, holding back groups that already failed, and
   * stopping when the gate refuses the destination.
   */
  private List<Delivery> sendInOrder(
      String destination, List<OutboundMessage> messages, PublishGate gate) {
    List<Delivery> deliveries = new ArrayList<>(messages.size());
    Set<String> failedGroups = new HashSet<>();
    List<OutboundMessage> pending = new ArrayList<>(messages);
    while (!pending.isEmpty()) {
      Delivery.Refusal refusal = gate.refusal(destination);
      if (refusal != null) {
        pending.forEach(m -> deliveries.add(refusal.of(m.id())));
        break;
      }
      List<OutboundMessage> sendable = new ArrayList<>(pending.size());
      for (OutboundMessage m : pending) {
        if (failedGroups.contains(m.messageGroupId())) {
          deliveries.add(Delivery.NotAttempted.heldBack(m.id()));
        } else {
          sendable.add(m);
        }
      }
      if (sendable.isEmpty()) {
        break;
      }
      int end = BatchPlanner.nextBatchEnd(sendable, 0);
      List<OutboundMessage> batch = List.copyOf(sendable.subList(0, end));
      for (Delivery d : sendBatch(destination, batch, gate)) {
        deliveries.add(d);
        if (!(d instanceof Delivery.Sent)) {
          failedGroups.add(groupOf(batch, d));
        }
      }
      pending = sendable.subList(end, sendable.size());
    }
    return deliveries;
  }

  /**
   * One batch call, reconciled; never throws for a broker or client failure. A whole call failing
   * with a message-level code (the call cannot say which entry is bad) is retried one message at a
   * time, so each message gets its own verdict.
   */
  private List<Delivery> sendBatch(
      String destination, List<OutboundMessage> batch, PublishGate gate) {
    Delivery.Refusal down = gate.refusal(destination);
    Delivery.Refusal refusal = down != null ? down : gate.pace(destination, batch.size());
    if (refusal != null) {
      return batch.stream().<Delivery>map(m -> refusal.of(m.id())).toList();
    }
    BatchSender sender =
        switch (DestinationKind.of(destination)) {
          case SNS_TOPIC -> sns;
          case SQS_QUEUE -> sqs;
          case EVENT_BUS -> events;
        };
    List<Delivery> deliveries;
    try {
      deliveries = BatchReconciler.reconcile(batch, sender.send(destination, batch));
    } catch (RuntimeException e) {
      Failure failure = FailureClassifier.call(e);
      deliveries = BatchReconciler.allFailed(batch, failure);
      if (!failure.destinationDown() && batch.size() > 1) {
        gate.answered(destination, deliveries);
        return sendEachAlone(destination, batch, gate);
      }
    }
    gate.answered(destination, deliveries);
    for (Delivery d : deliveries) {
      if (d instanceof Delivery.Failed f && f.failure().destinationDown()) {
        gate.destinationDown(destination, f.failure());
        break;
      }
    }
    return deliveries;
  }

  private List<Delivery> sendEachAlone(
      String destination, List<OutboundMessage> batch, PublishGate gate) {
    List<Delivery> deliveries = new ArrayList<>(batch.size());
    for (OutboundMessage m : batch) {
      deliveries.addAll(sendBatch(destination, List.of(m), gate));
    }
    return deliveries;
  }

  /** Whether two of {@code messages} have the same FIFO message group. */
  private static boolean sharesAGroup(List<OutboundMessage> messages) {
    Set<String> groups = new HashSet<>();
    for (OutboundMessage m : messages) {
      if (!groups.add(m.messageGroupId())) {
        return true;
      }
    }
    return false;
  }

  private static String groupOf(List<OutboundMessage> batch, Delivery delivery) {
    for (OutboundMessage m : batch) {
      if (m.id().equals(delivery.id())) {
        return m.messageGroupId();
      }
    }
    throw new IllegalStateException("delivery " + delivery.id() + " is not in its batch");
  }

  private static List<Delivery> call(Callable<List<Delivery>> task) {
    try {
      return task.call();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("publishing failed unexpectedly", e);
    }
  }

  private static List<Delivery> await(Future<List<Delivery>> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for batch calls", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("a batch call failed unexpectedly", e.getCause());
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
