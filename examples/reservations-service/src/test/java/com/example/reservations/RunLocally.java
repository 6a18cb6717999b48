package com.example.reservations;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The sample service on the local test bed, for a person: {@code examples/reservations-service/
 * run-local} starts the packaged poller and the service on port 8080 ({@code PORT} to change it),
 * then prints each event that reaches the queue, until interrupted.
 */
public final class RunLocally {
  private RunLocally() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
    try (LocalStack stack = LocalStack.start("sample_", "reservations-local", port);
        SqsClient sqs = stack.aws.sqs()) {
      System.out.printf(
          """

          The reservations service listens on http://127.0.0.1:%d; its events go to %s.
          Make a reservation (the shop seats %d):

            curl -s -X POST http://127.0.0.1:%d/reservations -H 'Content-Type: application/json' \\
              -d '{"shopId":"sushi-ya","guests":2}'

          A reservation over the seats left answers 409 and publishes nothing. The meters:
          http://127.0.0.1:%d/actuator/metrics/outbox.writer.appended. Ctrl-C stops.

          """,
          port, stack.queue, ReservationService.SEATS, port, port);
      ObjectMapper json = new ObjectMapper();
      while (!Thread.currentThread().isInterrupted()) {
        List<Message> messages =
            sqs.receiveMessage(r -> r.queueUrl(stack.queue).waitTimeSeconds(5)).messages();
        for (Message m : messages) {
          System.out.println(
              "received: "
                  + json.writerWithDefaultPrettyPrinter()
                      .writeValueAsString(json.readTree(m.body())));
          sqs.deleteMessage(r -> r.queueUrl(stack.queue).receiptHandle(m.receiptHandle()));
        }
      }
    }
  }
}
