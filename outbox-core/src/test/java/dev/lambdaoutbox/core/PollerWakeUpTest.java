package dev.lambdaoutbox.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wake-up event is recognised, and nothing a schedule or a fan-out sends is taken for one. */
class PollerWakeUpTest {
  @Test
  void theWakeUpEvent_isAWakeUp() {
    assertThat(PollerWakeUp.isWakeUp(bytes(PollerWakeUp.EVENT))).isTrue();
    assertThat(PollerWakeUp.isWakeUp(bytes("{ \"outboxWakeUp\" : true }"))).isTrue();
  }

  @Test
  void scheduledAndFanOutEvents_areNotWakeUps() {
    assertThat(
            PollerWakeUp.isWakeUp(
                bytes(
                    "{\"version\":\"0\",\"detail-type\":\"Scheduled Event\","
                        + "\"source\":\"aws.events\",\"detail\":{}}")))
        .isFalse();
    assertThat(PollerWakeUp.isWakeUp(bytes("{\"outboxFanOut\":{\"startedBy\":\"r1\"}}"))).isFalse();
    assertThat(PollerWakeUp.isWakeUp(bytes(""))).isFalse();
  }

  @Test
  void aWakeUpAnnouncesItsWakersQuietPeriod_andOneWithoutIt_none() {
    String event = PollerWakeUp.event(Duration.ofMillis(5_000));
    assertThat(event).isEqualTo("{\"outboxWakeUp\":true,\"quietMs\":5000}");
    assertThat(PollerWakeUp.isWakeUp(bytes(event))).isTrue();
    assertThat(PollerWakeUp.quiet(bytes(event))).isEqualTo(Duration.ofSeconds(5));
    assertThat(PollerWakeUp.event(Duration.ZERO)).isEqualTo(PollerWakeUp.EVENT);
    assertThat(PollerWakeUp.quiet(bytes(PollerWakeUp.EVENT))).isZero();
    assertThat(PollerWakeUp.quiet(bytes("{\"outboxWakeUp\":true,\"quietMs\":1.5e9}"))).isZero();
    assertThat(PollerWakeUp.quiet(bytes("{\"outboxWakeUp\":true,\"quietMs\":-3}"))).isZero();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
