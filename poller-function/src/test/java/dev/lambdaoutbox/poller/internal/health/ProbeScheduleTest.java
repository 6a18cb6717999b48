package dev.lambdaoutbox.poller.internal.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProbeScheduleTest {
  private final ProbeSchedule schedule =
      new ProbeSchedule(Duration.ofSeconds(5), Duration.ofMinutes(1));

  @Test
  void interval_doublesFromTheMinimum_upToTheMaximum() {
    assertThat(schedule.interval(1)).isEqualTo(Duration.ofSeconds(5));
    assertThat(schedule.interval(2)).isEqualTo(Duration.ofSeconds(10));
    assertThat(schedule.interval(3)).isEqualTo(Duration.ofSeconds(20));
    assertThat(schedule.interval(4)).isEqualTo(Duration.ofSeconds(40));
    assertThat(schedule.interval(5)).isEqualTo(Duration.ofMinutes(1));
    assertThat(schedule.interval(1_000_000)).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> schedule.interval(0)).hasMessageStartingWith("n: ");
    assertThatThrownBy(() -> new ProbeSchedule(Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .hasMessageStartingWith("max: ");
    assertThatThrownBy(() -> new ProbeSchedule(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessageStartingWith("min: ");
  }
}
