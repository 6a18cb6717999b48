package dev.lambdaoutbox.store.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class PacedDueTimesTest {
  static final Instant T = Instant.parse("2026-03-02T09:00:00Z");

  @Test
  void due_spacesRowsOneIntervalApart_toTheMicrosecond() {
    PacedDueTimes pace = new PacedDueTimes(T, 3);
    assertThat(pace.due(0)).isEqualTo(T);
    assertThat(pace.due(1)).isEqualTo(Instant.parse("2026-03-02T09:00:00.333333Z"));
    assertThat(pace.due(3)).isEqualTo(T.plusSeconds(1));
    assertThat(pace.after(3).due(0)).isEqualTo(pace.due(3));
  }

  @Test
  void following_startsOneIntervalAfterTheLast_butNeverBeforeNow() {
    assertThat(PacedDueTimes.following(null, T, 50).start()).isEqualTo(T);
    assertThat(PacedDueTimes.following(T.plusSeconds(5), T, 50).start())
        .isEqualTo(T.plusMillis(5_020));
    assertThat(PacedDueTimes.following(T.minusSeconds(5), T, 50).start()).isEqualTo(T);
  }

  @Test
  void rate_outsideItsRange_isRefused() {
    assertThatThrownBy(() -> new PacedDueTimes(T, 0)).hasMessageContaining("perSecond");
    assertThatThrownBy(() -> new PacedDueTimes(T, PacedDueTimes.MAX_PER_SECOND + 1))
        .hasMessageContaining("perSecond");
  }
}
