package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A row's own destination beats OUTBOX_ROUTES, which beats OUTBOX_DEFAULT_DESTINATION. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerRoutingTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("routing");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void eachRowGoesToItsDestination_rowThenExactRouteThenLongestWildcardThenDefault() {
    String own = bed.queue("own");
    String reservations = bed.queue("reservations");
    String cancellations = bed.queue("cancellations");
    String paymentFailed = bed.queue("payment-failed");
    String paymentsTopic = bed.topic("payments");
    String paymentsSub = bed.queue("payments-sub");
    bed.subscribeRaw(paymentsTopic, paymentsSub);
    String fallback = bed.queue("fallback");
    String routes =
        "{\"reservation.*\":\""
            + reservations
            + "\",\"reservation.cancel*\":\""
            + cancellations
            + "\",\"payment.failed\":\""
            + paymentFailed
            + "\",\"payment.*\":\""
            + paymentsTopic
            + "\"}";

    UUID withOwn = bed.append(event("reservation.created", "r-0").destination(own).build()).get(0);
    UUID created = bed.append(event("reservation.created", "r-1").build()).get(0);
    UUID cancelled = bed.append(event("reservation.cancelled", "r-2").build()).get(0);
    UUID failed = bed.append(event("payment.failed", "p-1").build()).get(0);
    UUID settled = bed.append(event("payment.settled", "p-2").build()).get(0);
    UUID other = bed.append(event("shipment.sent", "s-1").build()).get(0);

    PollSummary summary =
        bed.invoke(
            bed.handler(
                bed.config("OUTBOX_ROUTES", routes, "OUTBOX_DEFAULT_DESTINATION", fallback)));

    assertThat(summary.published()).isEqualTo(6);
    Map<String, UUID> expected =
        Map.of(
            own, withOwn,
            reservations, created,
            cancellations, cancelled,
            paymentFailed, failed,
            paymentsSub, settled,
            fallback, other);
    expected.forEach(
        (queue, id) ->
            assertThat(bed.receive(queue, 1))
                .as("queue %s", queue)
                .singleElement()
                .satisfies(m -> assertThat(attribute(m, "eventId")).isEqualTo(id.toString())));
  }

  @Test
  void noRowDestinationNoRouteNoDefault_deadLettersAtOnceWithNoDestination() {
    String reservations = bed.queue("only-reservations");
    UUID routed = bed.append(event("reservation.created", "r-1").build()).get(0);
    UUID lost = bed.append(event("shipment.sent", "s-1").build()).get(0);

    PollSummary summary =
        bed.invoke(
            bed.handler(
                bed.config("OUTBOX_ROUTES", "{\"reservation.*\":\"" + reservations + "\"}")));

    assertThat(summary.published()).isEqualTo(1);
    assertThat(summary.deadLettered()).isEqualTo(1);
    assertThat(bed.receive(reservations, 1))
        .singleElement()
        .satisfies(m -> assertThat(attribute(m, "eventId")).isEqualTo(routed.toString()));
    Map<String, Object> dead = bed.deadLetter(lost);
    assertThat(dead).isNotNull();
    assertThat(dead.get("error_code")).isEqualTo("NO_DESTINATION");
    assertThat((String) dead.get("error_reason")).contains("shipment.sent");
    assertThat(dead.get("attempts")).isEqualTo(1);
    assertThat(bed.logs("ERROR"))
        .singleElement()
        .satisfies(l -> assertThat(l.get("eventId").asText()).isEqualTo(lost.toString()));
  }
}
