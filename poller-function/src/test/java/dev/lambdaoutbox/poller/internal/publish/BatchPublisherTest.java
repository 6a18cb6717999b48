package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.Rows;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The publisher's own logic (which batches go where, in what order, when it stops), over a
 * recording {@link BatchSender}. Real SNS/SQS/EventBridge behaviour is covered in the tests module.
 */
class BatchPublisherTest {
  private static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/audit";
  private static final String FIFO = "https://sqs.us-east-1.amazonaws.com/123456789012/o.fifo";
  private static final String BUS = "arn:aws:events:us-east-1:123456789012:event-bus/orders";

  private final List<BatchPublisher> publishers = new ArrayList<>();

  @AfterEach
  void close() {
    publishers.forEach(BatchPublisher::close);
  }

  @Test
  void publish_sendsBusesToEventBridge_inBatchesCutAtItsLimit() {
    RecordingSender sns = new RecordingSender(batch -> allOk(batch));
    RecordingSender sqs = new RecordingSender(batch -> allOk(batch));
    RecordingSender events = new RecordingSender(batch -> allOk(batch));
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      messages.add(Rows.message(BUS, 200_000)); // five fit in 1 MiB, six do not
    }

    List<Delivery> deliveries =
        publisher(sns, sqs, events, 2).publish(messages, PublishGate.open());

    assertThat(deliveries).hasSize(6).allMatch(d -> d instanceof Delivery.Sent);
    assertThat(events.destinations).containsOnly(BUS);
    assertThat(events.batches).extracting(List::size).containsExactlyInAnyOrder(5, 1);
    assertThat(sns.batches).isEmpty();
    assertThat(sqs.batches).isEmpty();
  }

  @Test
  void publish_sendsSnsDestinationsToSnsAndQueuesToSqs() {
    RecordingSender sns = new RecordingSender(batch -> allOk(batch));
    RecordingSender sqs = new RecordingSender(batch -> allOk(batch));
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      messages.add(Rows.message(i % 2 == 0 ? TOPIC : QUEUE, 50));
    }

    List<Delivery> deliveries = publisher(sns, sqs, 4).publish(messages, PublishGate.open());

    assertThat(deliveries).hasSize(12).allMatch(d -> d instanceof Delivery.Sent);
    assertThat(sns.destinations).containsOnly(TOPIC);
    assertThat(sqs.destinations).containsOnly(QUEUE);
    assertThat(sns.batches).extracting(List::size).containsExactly(6);
  }

  @Test
  void publish_batchesOfDifferentDestinationsRunConcurrently() throws Exception {
    CountDownLatch bothStarted = new CountDownLatch(2);
    RecordingSender sender =
        new RecordingSender(
            batch -> {
              bothStarted.countDown();
              try {
                assertThat(bothStarted.await(5, TimeUnit.SECONDS)).isTrue();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return allOk(batch);
            });

    List<Delivery> deliveries =
        publisher(sender, sender, 2)
            .publish(List.of(Rows.message(TOPIC, 10), Rows.message(QUEUE, 10)), PublishGate.open());

    assertThat(deliveries).allMatch(d -> d instanceof Delivery.Sent);
  }

  @Test
  void publish_fifoBatchesOfOneDestinationGoOutOneAfterAnotherInClaimOrder() {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              try {
                Thread.sleep(5);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              inFlight.decrementAndGet();
              return allOk(batch);
            });
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 35; i++) {
      messages.add(Rows.message(FIFO, "agg-" + (i % 3), 20));
    }

    publisher(new RecordingSender(b -> allOk(b)), sqs, 8).publish(messages, PublishGate.open());

    assertThat(maxInFlight.get()).isEqualTo(1);
    assertThat(sqs.batches.stream().flatMap(List::stream).toList()).isEqualTo(messages);
  }

  @Test
  void publish_fifoMessagesEachInAGroupOfTheirOwn_goOutInConcurrentBatches() {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    java.util.concurrent.CountDownLatch twoAtOnce = new java.util.concurrent.CountDownLatch(2);
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              twoAtOnce.countDown();
              try {
                twoAtOnce.await(5, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              inFlight.decrementAndGet();
              return allOk(batch);
            });
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 35; i++) {
      messages.add(Rows.message(FIFO, "agg-" + i, 20)); // one per aggregate, as an ordered claim
    }

    List<Delivery> deliveries =
        publisher(new RecordingSender(b -> allOk(b)), sqs, 8).publish(messages, PublishGate.open());

    assertThat(maxInFlight.get()).isGreaterThan(1);
    assertThat(deliveries).hasSize(35).allMatch(d -> d instanceof Delivery.Sent);
  }

  @Test
  void publish_fifo_afterAGroupFails_itsLaterMessagesAreHeldBack_othersGoOn() {
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      messages.add(Rows.message(FIFO, i % 2 == 0 ? "even" : "odd", 20));
    }
    OutboundMessage firstEven = messages.get(0);
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              Set<String> ok = new HashSet<>();
              Map<String, BatchResponse.EntryError> failed = new HashMap<>();
              for (OutboundMessage m : batch) {
                if (m == firstEven) {
                  failed.put(
                      m.id().toString(), new BatchResponse.EntryError("InternalError", "x", false));
                } else {
                  ok.add(m.id().toString());
                }
              }
              return new BatchResponse(ok, failed);
            });

    List<Delivery> deliveries =
        publisher(new RecordingSender(b -> allOk(b)), sqs, 2).publish(messages, PublishGate.open());

    Map<java.util.UUID, Delivery> byId = new HashMap<>();
    deliveries.forEach(d -> byId.put(d.id(), d));
    assertThat(byId).hasSize(20);
    for (int i = 0; i < 20; i++) {
      Delivery d = byId.get(messages.get(i).id());
      if (i == 0) {
        assertThat(d).isInstanceOf(Delivery.Failed.class);
      } else if (i % 2 == 1 || i < 10) {
        // odd group always flows; evens 2..8 were in the same first batch as the failure
        assertThat(d).isInstanceOf(Delivery.Sent.class);
      } else {
        assertThat(d).isInstanceOf(Delivery.NotAttempted.class);
      }
    }
  }

  @Test
  void publish_connectionRefused_marksTheDestinationDown_skipsItsOtherBatches_othersGoOn() {
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              throw SdkClientException.create("refused", new ConnectException("refused"));
            });
    RecordingSender sns = new RecordingSender(b -> allOk(b));
    RecordingGate gate = new RecordingGate();
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      messages.add(Rows.message(QUEUE, 20));
    }
    messages.add(Rows.message(TOPIC, 20));

    List<Delivery> deliveries = publisher(sns, sqs, 1).publish(messages, gate);

    assertThat(gate.down).containsOnlyKeys(QUEUE);
    assertThat(gate.down.get(QUEUE).code()).isEqualTo(Codes.CONNECTION_ERROR);
    assertThat(gate.down.get(QUEUE).scope()).isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
    assertThat(deliveries.stream().filter(d -> d instanceof Delivery.Failed)).hasSize(10);
    assertThat(deliveries.stream().filter(d -> d instanceof Delivery.NotAttempted))
        .hasSize(20)
        .allMatch(d -> ((Delivery.NotAttempted) d).why() == Delivery.Why.DESTINATION_DOWN);
    assertThat(deliveries.stream().filter(d -> d instanceof Delivery.Sent)).hasSize(1);
    assertThat(sqs.batches).hasSize(1);
  }

  @Test
  void publish_oneFailedEntry_doesNotMarkTheDestinationDown() {
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              Set<String> ok = new HashSet<>();
              batch.subList(1, batch.size()).forEach(m -> ok.add(m.id().toString()));
              return new BatchResponse(
                  ok,
                  Map.of(
                      batch.get(0).id().toString(),
                      new BatchResponse.EntryError("InternalError", "x", false)));
            });
    RecordingGate gate = new RecordingGate();

    List<Delivery> deliveries =
        publisher(sqs, sqs, 1)
            .publish(List.of(Rows.message(QUEUE, 5), Rows.message(QUEUE, 5)), gate);

    assertThat(gate.down).isEmpty();
    assertThat(((Delivery.Failed) deliveries.get(0)).failure())
        .satisfies(
            f -> {
              assertThat(f.scope()).isEqualTo(Failure.Scope.DESTINATION_BUSY);
              assertThat(f.permanent()).isFalse();
            });
  }

  @Test
  void publish_eachCallWaitsForTheGatesPace_andTheGateHearsEachAnswer() {
    RecordingSender sqs =
        new RecordingSender(
            batch ->
                new BatchResponse(
                    Set.of(batch.get(0).id().toString()),
                    Map.of(
                        batch.get(1).id().toString(),
                        new BatchResponse.EntryError("RequestThrottled", "slow down", true))));
    RecordingGate gate = new RecordingGate();

    publisher(sqs, sqs, 1).publish(List.of(Rows.message(QUEUE, 5), Rows.message(QUEUE, 5)), gate);

    assertThat(gate.paced).containsExactly(2);
    assertThat(gate.answers)
        .singleElement()
        .satisfies(
            answer ->
                assertThat(answer)
                    .filteredOn(d -> d instanceof Delivery.Failed f && f.failure().throttled())
                    .hasSize(1));
  }

  @Test
  void publish_aCallThePaceRefuses_isNotMade_itsMessagesNotAttempted() {
    RecordingSender sqs = new RecordingSender(batch -> allOk(batch));
    RecordingGate gate = new RecordingGate();
    gate.paceRefusal = new Delivery.Refusal(Delivery.Why.TIME_SHORT, "no slot");

    List<Delivery> deliveries =
        publisher(sqs, sqs, 1)
            .publish(List.of(Rows.message(QUEUE, 5), Rows.message(QUEUE, 5)), gate);

    assertThat(sqs.batches).isEmpty();
    assertThat(gate.answers).isEmpty();
    assertThat(deliveries)
        .hasSize(2)
        .allSatisfy(
            d ->
                assertThat(d)
                    .isInstanceOfSatisfying(
                        Delivery.NotAttempted.class,
                        n -> assertThat(n.why()).isEqualTo(Delivery.Why.TIME_SHORT)));
  }

  @Test
  void publish_wholeCallRefusedForOneMessage_sendsEachAlone_soOnlyThatOneFails() {
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      messages.add(Rows.message(QUEUE, 20));
    }
    OutboundMessage bad = messages.get(3);
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              if (batch.contains(bad)) {
                throw SqsException.builder()
                    .awsErrorDetails(
                        AwsErrorDetails.builder()
                            .errorCode("InvalidParameterValue")
                            .errorMessage("Message attribute value is invalid")
                            .build())
                    .statusCode(400)
                    .build();
              }
              return allOk(batch);
            });
    RecordingGate gate = new RecordingGate();

    List<Delivery> deliveries = publisher(sqs, sqs, 1).publish(messages, gate);

    assertThat(sqs.batches).extracting(List::size).containsExactly(5, 1, 1, 1, 1, 1);
    assertThat(deliveries).hasSize(5);
    for (Delivery d : deliveries) {
      if (d.id().equals(bad.id())) {
        assertThat(((Delivery.Failed) d).failure())
            .satisfies(
                f -> {
                  assertThat(f.scope()).isEqualTo(Failure.Scope.MESSAGE);
                  assertThat(f.permanent()).isTrue();
                });
      } else {
        assertThat(d).isInstanceOf(Delivery.Sent.class);
      }
    }
    assertThat(gate.down).isEmpty();
  }

  @Test
  void publish_fifoDestinationDown_itsLaterBatchesWaitForTheDestination_notHeldBack() {
    RecordingSender sqs =
        new RecordingSender(
            batch -> {
              throw SdkClientException.create("refused", new ConnectException("refused"));
            });
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      messages.add(Rows.message(FIFO, "agg-" + (i % 3), 20));
    }

    List<Delivery> deliveries =
        publisher(new RecordingSender(b -> allOk(b)), sqs, 2)
            .publish(messages, new RecordingGate());

    assertThat(sqs.batches).hasSize(1);
    assertThat(deliveries.stream().filter(d -> d instanceof Delivery.NotAttempted))
        .hasSize(15)
        .allMatch(d -> ((Delivery.NotAttempted) d).why() == Delivery.Why.DESTINATION_DOWN);
  }

  /** A gate that refuses a destination once a call showed it down, as a round's gate does. */
  private static final class RecordingGate implements PublishGate {
    final Map<String, Failure> down = new java.util.concurrent.ConcurrentHashMap<>();
    final List<Integer> paced = Collections.synchronizedList(new ArrayList<>());
    final List<List<Delivery>> answers = Collections.synchronizedList(new ArrayList<>());
    volatile Delivery.Refusal paceRefusal;

    @Override
    public Delivery.Refusal pace(String destination, int messages) {
      paced.add(messages);
      return paceRefusal;
    }

    @Override
    public void answered(String destination, List<Delivery> deliveries) {
      answers.add(deliveries);
    }

    @Override
    public Delivery.Refusal refusal(String destination) {
      return down.containsKey(destination)
          ? new Delivery.Refusal(Delivery.Why.DESTINATION_DOWN, "down")
          : null;
    }

    @Override
    public Delivery.Refusal uploadRefusal() {
      return null;
    }

    @Override
    public void destinationDown(String destination, Failure failure) {
      down.putIfAbsent(destination, failure);
    }
  }

  private BatchPublisher publisher(BatchSender sns, BatchSender sqs, int threads) {
    return publisher(sns, sqs, new RecordingSender(batch -> allOk(batch)), threads);
  }

  private BatchPublisher publisher(
      BatchSender sns, BatchSender sqs, BatchSender events, int threads) {
    BatchPublisher publisher =
        new BatchPublisher(sns, sqs, events, Executors.newFixedThreadPool(threads));
    publishers.add(publisher);
    return publisher;
  }

  private static BatchResponse allOk(List<OutboundMessage> batch) {
    Set<String> ids = new HashSet<>();
    batch.forEach(m -> ids.add(m.id().toString()));
    return new BatchResponse(ids, Map.of());
  }

  /** Records each call and answers with {@code answer}. */
  private static final class RecordingSender implements BatchSender {
    final List<String> destinations = Collections.synchronizedList(new ArrayList<>());
    final List<List<OutboundMessage>> batches = Collections.synchronizedList(new ArrayList<>());
    private final Function<List<OutboundMessage>, BatchResponse> answer;

    RecordingSender(Function<List<OutboundMessage>, BatchResponse> answer) {
      this.answer = answer;
    }

    @Override
    public BatchResponse send(String destination, List<OutboundMessage> batch) {
      destinations.add(destination);
      batches.add(batch);
      return answer.apply(batch);
    }
  }
}
