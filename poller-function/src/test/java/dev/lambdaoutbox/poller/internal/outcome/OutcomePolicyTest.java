package dev.lambdaoutbox.poller.internal.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.Rows;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Which failures spend a row's retries: only its own message's. */
class OutcomePolicyTest {
  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/q";
  private static final DestinationHealth DOWN =
      new DestinationHealth(
          QUEUE,
          DestinationState.UNAVAILABLE,
          Codes.CONNECTION_ERROR,
          "Connection refused",
          NOW.minusSeconds(600),
          7,
          NOW.plusSeconds(60),
          NOW);

  private static final Duration BACKOFF_BASE = Duration.ofSeconds(1);

  private final OutcomePolicy policy =
      new OutcomePolicy(
          3, new Backoff(BACKOFF_BASE, Duration.ofMinutes(1), new SplittableRandom(1)));

  @Test
  void destinationFailure_defersToTheNextProbe_withoutSpendingARetry_evenAtTheLimit() {
    OutboxMessage atLimit = row(3);

    DeliveryOutcome outcome =
        policy
            .decide(
                atLimit,
                new Delivery.Failed(
                    atLimit.id(),
                    Failure.destinationUnavailable(Codes.CONNECTION_ERROR, "Connection refused")),
                DOWN,
                NOW)
            .orElseThrow();

    assertThat(outcome)
        .isInstanceOfSatisfying(
            DeliveryOutcome.Defer.class,
            d -> {
              assertThat(d.until()).isEqualTo(DOWN.nextProbeAt());
              assertThat(d.errorCode()).isEqualTo(Codes.CONNECTION_ERROR);
              assertThat(d.reason()).contains("no retry spent").contains(QUEUE);
            });
  }

  @Test
  void destinationDownBeforehand_defersWithTheDestinationsError() {
    OutboxMessage row = row(0);

    DeliveryOutcome outcome =
        policy
            .decide(
                row,
                new Delivery.NotAttempted(row.id(), Delivery.Why.DESTINATION_DOWN, "down"),
                DOWN,
                NOW)
            .orElseThrow();

    assertThat(outcome)
        .isInstanceOfSatisfying(
            DeliveryOutcome.Defer.class,
            d -> assertThat(d.reason()).contains("not attempted").contains("unavailable since"));
  }

  @Test
  void messageFailure_spendsARetry_andAtTheLimitDeadLetters() {
    OutboxMessage fresh = row(0);
    OutboxMessage atLimit = row(3);
    Failure throttled = Failure.transientFailure("SomethingNew", "no idea");

    assertThat(policy.decide(fresh, new Delivery.Failed(fresh.id(), throttled), null, NOW).get())
        .isInstanceOf(DeliveryOutcome.Retry.class);
    assertThat(
            policy.decide(atLimit, new Delivery.Failed(atLimit.id(), throttled), null, NOW).get())
        .isInstanceOfSatisfying(
            DeliveryOutcome.DeadLetter.class,
            d -> assertThat(d.reason()).contains("gave up after 4 attempts"));
  }

  @Test
  void destinationBusy_defersShortly_withoutSpendingARetry_evenAtTheLimit() {
    for (OutboxMessage row : List.of(row(0), row(3))) {
      Failure throttled = Failure.destinationBusy("RequestThrottled", "slow down");

      assertThat(policy.decide(row, new Delivery.Failed(row.id(), throttled), null, NOW).get())
          .isInstanceOfSatisfying(
              DeliveryOutcome.Defer.class,
              d -> {
                assertThat(d.errorCode()).isEqualTo("RequestThrottled");
                assertThat(d.until()).isAfter(NOW).isBefore(NOW.plus(BACKOFF_BASE).plusMillis(1));
                assertThat(d.destination()).isNull();
                assertThat(d.reason()).contains("slow down").contains("no retry spent");
              });
    }
  }

  @Test
  void notSentForTime_isReleased_heldBackGetsNoOutcome() {
    OutboxMessage row = row(2);

    assertThat(
            policy.decide(
                row, new Delivery.NotAttempted(row.id(), Delivery.Why.TIME_SHORT, "t"), null, NOW))
        .contains(new DeliveryOutcome.Release(row.id()));
    assertThat(
            policy.decide(
                row, new Delivery.NotAttempted(row.id(), Delivery.Why.HELD_BACK, "h"), null, NOW))
        .isEmpty();
  }

  private static OutboxMessage row(int retries) {
    return Rows.row(
        UUID.randomUUID(), "order", "o-1", "order.created", "{}", Map.of(), null, retries);
  }
}
