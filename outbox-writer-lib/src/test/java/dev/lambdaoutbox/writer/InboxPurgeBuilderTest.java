package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InboxPurgeBuilderTest {

  @Test
  void defaults_outlastSqsLongestRetention() {
    InboxPurge purge = InboxPurge.builder().build();

    assertThat(purge.retention()).isEqualTo(Duration.ofDays(15)).isGreaterThan(Duration.ofDays(14));
    assertThat(purge.maxRows()).isEqualTo(1_000);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 10_001})
  void maxRows_outOfRange_isRefusedNamingIt(int maxRows) {
    assertThatThrownBy(() -> InboxPurge.builder().maxRows(maxRows))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxRows: ")
        .hasMessageContaining(String.valueOf(maxRows));
  }

  @Test
  void retention_notPositive_isRefusedNamingIt() {
    assertThatThrownBy(() -> InboxPurge.builder().retention(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("retention: ");
    assertThatThrownBy(() -> InboxPurge.builder().retention(Duration.ofHours(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("retention: ");
  }

  @Test
  void limits_atTheEdges_areAccepted() {
    assertThat(InboxPurge.builder().maxRows(1).build().maxRows()).isEqualTo(1);
    assertThat(InboxPurge.builder().maxRows(10_000).build().maxRows()).isEqualTo(10_000);
    assertThat(InboxPurge.builder().retention(Duration.ofDays(30)).build().retention())
        .isEqualTo(Duration.ofDays(30));
  }
}
