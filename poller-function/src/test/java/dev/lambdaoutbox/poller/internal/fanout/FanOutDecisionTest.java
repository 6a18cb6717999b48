package dev.lambdaoutbox.poller.internal.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.poller.PollSummary;
import org.junit.jupiter.api.Test;

class FanOutDecisionTest {
  private static final long MINUTE = 60_000;

  @Test
  void oneAllowed_neverAsksForMore() {
    FanOutDecision decision = new FanOutDecision(1, 100, 10);
    assertThat(decision.enabled()).isFalse();
    assertThat(decision.extraInvocations(1_000_000, MINUTE)).isZero();
  }

  @Test
  void asksForWhatTheDueRowsNeed_beyondThisInvocation_withinTheLimit() {
    FanOutDecision decision = new FanOutDecision(4, 100, 10); // 600 rows a minute
    assertThat(decision.extraInvocations(0, MINUTE)).isZero();
    assertThat(decision.extraInvocations(600, MINUTE)).isZero();
    assertThat(decision.extraInvocations(601, MINUTE)).isEqualTo(1);
    assertThat(decision.extraInvocations(1_800, MINUTE)).isEqualTo(2);
    assertThat(decision.extraInvocations(1_000_000, MINUTE)).isEqualTo(3);
  }

  @Test
  void countsJustEnoughRowsToTellEveryInvocationWouldBeBusy() {
    FanOutDecision decision = new FanOutDecision(4, 100, 10);
    int limit = decision.countLimit(MINUTE);
    assertThat(limit).isEqualTo(2_401);
    assertThat(decision.extraInvocations(limit, MINUTE)).isEqualTo(3);
    assertThat(decision.extraInvocations(limit - 1, MINUTE)).isEqualTo(3);
  }

  @Test
  void noTimeLeft_countsEveryRowAsBeyondIt() {
    FanOutDecision decision = new FanOutDecision(3, 100, 10);
    assertThat(decision.capacity(-5)).isEqualTo(1);
    assertThat(decision.extraInvocations(5, -5)).isEqualTo(2);
  }

  @Test
  void learnsTheRate_onlyFromAnInvocationWithAtLeastTwoFullBatches() {
    FanOutDecision decision = new FanOutDecision(4, 100, 10);
    decision.observed(summary(150, 1_000));
    assertThat(decision.eventsPerSecond()).isEqualTo(10);
    decision.observed(summary(2_000, 1_000));
    assertThat(decision.eventsPerSecond()).isEqualTo(2_000);
    assertThat(decision.extraInvocations(100_000, MINUTE)).isZero();
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new FanOutDecision(0, 100, 10))
        .hasMessageContaining("maxConcurrentPollers");
    assertThatThrownBy(() -> new FanOutDecision(2, 100, 0)).hasMessageContaining("eventsPerSecond");
  }

  private static PollSummary summary(int published, long durationMs) {
    return new PollSummary(published, published, 0, 0, 0, 0, 0, 0, 1, "drained", durationMs);
  }
}
