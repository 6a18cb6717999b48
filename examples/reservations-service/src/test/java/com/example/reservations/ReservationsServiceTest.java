package com.example.reservations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.writer.PollerWaker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The sample service end to end on the local test bed ({@link LocalStack}): a reservation made over
 * HTTP is committed with its event, the service wakes the packaged poller after the commit, and the
 * poller delivers the event to the queue as a CloudEvent. No scheduled run is ever made here, so
 * what arrives was published by a woken run. A reservation the shop cannot seat rolls back: no
 * reservation, no event, no wake-up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReservationsServiceTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LocalStack stack;
  private HttpClient http;
  private SqsClient sqs;

  @BeforeAll
  void start() throws Exception {
    String run = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xFFFF));
    stack = LocalStack.start("sample_" + run + "_", "reservations-" + run, 0);
    http = HttpClient.newHttpClient();
    sqs = stack.aws.sqs();
  }

  @AfterAll
  void stop() {
    if (sqs != null) {
      sqs.deleteQueue(r -> r.queueUrl(stack.queue));
      sqs.close();
    }
    if (stack != null) {
      stack.close();
      stack.db.dropTables(stack.tables);
    }
  }

  @Test
  void aReservation_isCommittedWithItsEvent_andTheWokenPollerDeliversItAsACloudEvent()
      throws Exception {
    String shop = "sushi-ya-" + UUID.randomUUID();
    int woken = stack.runtime.invokedByFunctions().size();

    HttpResponse<String> response = reserve(shop, 2);

    assertThat(response.statusCode()).isEqualTo(201);
    String id = JSON.readTree(response.body()).path("id").asText();
    Message message = awaitMessage(Duration.ofSeconds(30));
    assertThat(message).as("the event, published by a woken run").isNotNull();
    JsonNode event = JSON.readTree(message.body());
    assertThat(event.path("specversion").asText()).isEqualTo("1.0");
    assertThat(event.path("type").asText()).isEqualTo("reservation.created");
    assertThat(event.path("source").asText()).isEqualTo(LocalStack.EVENT_SOURCE);
    assertThat(event.path("subject").asText()).isEqualTo(id);
    assertThat(event.path("id").asText())
        .isEqualTo(message.messageAttributes().get("eventId").stringValue());
    assertThat(event.path("data").path("shopId").asText()).isEqualTo(shop);
    assertThat(event.path("traceparent").asText()).startsWith("00-");
    assertThat(stack.runtime.invokedByFunctions()).hasSizeGreaterThan(woken);
    assertThat(count("SELECT count(*) FROM reservations WHERE id = '" + id + "'")).isEqualTo(1);
  }

  @Test
  void aReservationTheShopCannotSeat_rollsBack_leavingNoEventAndNoWakeUp() throws Exception {
    String shop = "izakaya-" + UUID.randomUUID();
    settle();
    int woken = stack.runtime.invokedByFunctions().size();
    long requested = stack.app.getBean(PollerWaker.class).counts().requested();

    HttpResponse<String> response = reserve(shop, ReservationService.SEATS + 1);

    assertThat(response.statusCode()).isEqualTo(409);
    assertThat(response.body()).contains("seats left");
    assertThat(count("SELECT count(*) FROM reservations WHERE shop_id = '" + shop + "'")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM "
                    + stack.tables.messages()
                    + " WHERE payload LIKE '%"
                    + shop
                    + "%'"))
        .isZero();
    assertThat(stack.app.getBean(PollerWaker.class).counts().requested()).isEqualTo(requested);
    assertThat(awaitMessage(Duration.ofSeconds(2))).as("no event").isNull();
    assertThat(stack.runtime.invokedByFunctions()).as("no wake-up").hasSize(woken);
  }

  /** Waits for the woken runs so far to end, so that none is counted against the next test. */
  private void settle() throws Exception {
    for (var run : new ArrayList<>(stack.runtime.invokedByFunctions())) {
      run.get(60, TimeUnit.SECONDS);
    }
    while (awaitMessage(Duration.ofSeconds(1)) != null) {
      // an earlier test's event
    }
  }

  private HttpResponse<String> reserve(String shop, int guests) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stack.port() + "/reservations"))
            .header("Content-Type", "application/json")
            .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"shopId\":\"" + shop + "\",\"guests\":" + guests + "}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The next message on the queue, deleted; null when none arrives within {@code atMost}. */
  private Message awaitMessage(Duration atMost) {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (System.nanoTime() < deadline) {
      List<Message> messages =
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(stack.queue)
                          .maxNumberOfMessages(1)
                          .waitTimeSeconds(1)
                          .messageAttributeNames("All"))
              .messages();
      if (!messages.isEmpty()) {
        Message m = messages.get(0);
        sqs.deleteMessage(r -> r.queueUrl(stack.queue).receiptHandle(m.receiptHandle()));
        return m;
      }
    }
    return null;
  }

  private int count(String sql) {
    return stack.db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Integer.class).one());
  }
}
