package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.testing.AwsEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * An SQS endpoint (LocalStack's runtime or ElasticMQ): the poller sends to a fresh queue with its
 * real batch publisher; afterwards the harness receives every message and takes each event's {@code
 * SentTimestamp}, the time the broker accepted it (milliseconds of the broker's clock, this
 * machine's). Messages are received once (a visibility timeout of 12 hours) and not deleted: the
 * queue is dropped instead, which spares the broker half its calls.
 */
final class SqsBroker implements LatencyBroker {
  private static final int READERS = 4;

  private final String name;
  private final AwsEndpoint aws;
  private final SqsClient sqs;
  private final SnsClient sns; // the publisher needs one; never called, the destination is a queue
  private final AutoCloseable server;

  /**
   * @param server stopped on {@link #close()} (a private broker); null for a shared one
   */
  SqsBroker(String name, AwsEndpoint aws, AutoCloseable server) {
    this.name = name;
    this.aws = aws;
    this.sqs = aws.sqs();
    this.sns = aws.sns();
    this.server = server;
  }

  @Override
  public String describe() {
    return name
        + " SQS at "
        + aws.endpoint()
        + ": \"published\" = the message's SentTimestamp (the broker's clock, milliseconds)";
  }

  @Override
  public String newDestination() {
    String queue = "latency-" + UUID.randomUUID().toString().substring(0, 8);
    return sqs.createQueue(r -> r.queueName(queue)).queueUrl();
  }

  @Override
  public MessagePublisher publisher(PollerConfig config, EventTimes times) {
    return PollerWiring.publisher(config, sns, sqs);
  }

  @Override
  public void collect(String queueUrl, EventTimes times, Duration atMost) throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(READERS);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int i = 0; i < READERS; i++) {
        readers.add(
            pool.submit(
                () -> {
                  while (System.nanoTime() < deadline) {
                    List<Message> batch = receive(queueUrl);
                    // The poller is done, so an empty receive means an empty queue.
                    if (batch.isEmpty() && times.acceptedCount() >= times.measured()) {
                      return null;
                    }
                    for (Message m : batch) {
                      MessageAttributeValue id = m.messageAttributes().get("eventId");
                      String sent = m.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP);
                      if (id != null && sent != null) {
                        times.accepted(
                            UUID.fromString(id.stringValue()), Long.parseLong(sent) * 1000);
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : readers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private List<Message> receive(String queueUrl) {
    return sqs.receiveMessage(
            r ->
                r.queueUrl(queueUrl)
                    .maxNumberOfMessages(10)
                    .waitTimeSeconds(1)
                    .visibilityTimeout(43_200)
                    .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP)
                    .messageAttributeNames("eventId"))
        .messages();
  }

  @Override
  public void drop(String queueUrl) {
    sqs.deleteQueue(r -> r.queueUrl(queueUrl));
  }

  @Override
  public OptionalInt port() {
    return OptionalInt.of(aws.endpoint().getPort());
  }

  @Override
  public void close() {
    sqs.close();
    sns.close();
    if (server != null) {
      try {
        server.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not stop " + name, e);
      }
    }
  }
}
