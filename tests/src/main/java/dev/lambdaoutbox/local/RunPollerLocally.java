package dev.lambdaoutbox.local;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The main job, locally: the packaged poller jar publishes a few reservation events through the
 * local test bed. It creates an SNS topic with a subscribed SQS queue on the local endpoint, the
 * outbox tables (prefix {@code demo_}) in the local PostgreSQL, writes three events in one business
 * transaction, invokes the poller with {@code events/scheduled-event.json} as Lambda would, and
 * prints the poller's answer, its log lines and what arrived on the queue. Run it with {@code make
 * run-poller}.
 */
public final class RunPollerLocally {
  private RunPollerLocally() {}

  public static void main(String[] args) throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    AwsEndpoint aws = TestEndpoints.aws();

    try (SnsClient sns = aws.sns();
        SqsClient sqs = aws.sqs()) {
      String topicArn = LocalDemo.topic(sns);
      String queueUrl = sqs.createQueue(r -> r.queueName("outbox-demo-inbox")).queueUrl();
      AwsEndpoint.subscribeRaw(sns, sqs, topicArn, queueUrl);
      System.out.println("topic  " + topicArn + "\nqueue  " + queueUrl);

      Jdbi jdbi = db.jdbi();
      OutboxTables tables = LocalDemo.tables(db);
      jdbi.useHandle(
          h ->
              h.execute(
                  "CREATE TABLE IF NOT EXISTS demo_reservations (id varchar(64) PRIMARY KEY, shop varchar(64))"));
      OutboxWriter outbox = OutboxWriter.builder().tables(tables).build();
      jdbi.useTransaction(
          h -> {
            for (String shop : List.of("sushi-ya", "ramen-ya", "izakaya")) {
              String id = UUID.randomUUID().toString();
              h.execute("INSERT INTO demo_reservations (id, shop) VALUES (?, ?)", id, shop);
              outbox.append(
                  h,
                  OutboxEvent.builder()
                      .aggregateType("reservation")
                      .aggregateId(id)
                      .eventType("reservation.created")
                      .payload(Map.of("reservationId", id, "shop", shop))
                      .header(
                          "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                      .build());
            }
          });
      System.out.println("wrote 3 reservations and their outbox events in one transaction\n");

      Map<String, String> env =
          Map.ofEntries(
              Map.entry("OUTBOX_JDBC_URL", db.jdbcUrl()),
              Map.entry("OUTBOX_DB_USER", db.user()),
              Map.entry("OUTBOX_DB_PASSWORD", db.password()),
              Map.entry("OUTBOX_TABLE_PREFIX", tables.prefix()),
              Map.entry("OUTBOX_DEFAULT_DESTINATION", topicArn),
              Map.entry("AWS_ENDPOINT_URL", aws.endpoint().toString()),
              Map.entry("AWS_REGION", aws.region()),
              Map.entry("AWS_ACCESS_KEY_ID", aws.accessKeyId()),
              Map.entry("AWS_SECRET_ACCESS_KEY", aws.secretAccessKey()));
      String event =
          Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
      try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
          PackagedFunction poller =
              PackagedFunction.start(
                  OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, runtime)) {
        LambdaRuntimeEmulator.Result result = runtime.invoke(event, Duration.ofSeconds(60));
        System.out.println("poller output:\n" + poller.output());
        System.out.println(
            (result.failed() ? "poller FAILED (" + result.errorType() + "): " : "poller answered: ")
                + result.body()
                + "\n");
      }

      List<Message> received =
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(queueUrl)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(2)
                          .messageAttributeNames("All"))
              .messages();
      System.out.println(received.size() + " messages on " + queueUrl + ":");
      for (Message m : received) {
        System.out.println(
            "  " + m.body() + "  eventId=" + m.messageAttributes().get("eventId").stringValue());
        sqs.deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(m.receiptHandle()));
      }
    }
  }
}
