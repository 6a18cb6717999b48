package dev.lambdaoutbox.poller.internal.invocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClaimSizeTest {
  private static final double FAST = 4_000; // rows a second: eight calls of ten in 20 ms
  private static final long WINDOW = 47_000; // a 60 s run's first claim: 60 s - 3 s - 10 s

  /** A claim's result: how many rows it took and whether its bytes cut it short. */
  private record Taken(int rows, boolean stoppedAtBudget) {}

  /**
   * The sizes asked for along a run whose claims take what {@code due} says (the rows due at each
   * claim) at a pace of {@code rowsPerSecond}.
   */
  private static List<Integer> asked(ClaimSize sizes, double rowsPerSecond, int... due) {
    List<Integer> asked = new ArrayList<>();
    int ask = sizes.first();
    for (int d : due) {
      asked.add(ask);
      Taken taken = new Taken(Math.min(d, ask), false);
      ask = sizes.withinPace(sizes.next(ask, taken.rows(), false), rowsPerSecond, WINDOW);
    }
    return asked;
  }

  @Test
  void next_growsOnFullClaims_upToTheLargest() {
    assertThat(asked(new ClaimSize(100, 1_000), FAST, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000))
        .containsExactly(100, 200, 400, 800, 1_000, 1_000);
  }

  @Test
  void next_afterAShortClaim_fallsBackToTheFirst() {
    // A backlog drained, then a trickle: the claim after the short one is small again.
    assertThat(asked(new ClaimSize(100, 1_000), FAST, 5_000, 5_000, 5_000, 250, 3, 3, 150, 150))
        .containsExactly(100, 200, 400, 800, 100, 100, 100, 200);
  }

  @Test
  void next_anAlmostEmptyOutbox_isClaimedWithTheFirstSize() {
    assertThat(asked(new ClaimSize(100, 1_000), FAST, 0, 1, 99, 7, 0)).containsOnly(100);
  }

  @Test
  void next_equalSizes_isAFixedClaim() {
    assertThat(asked(new ClaimSize(100, 100), FAST, 5_000, 5_000, 5_000, 0)).containsOnly(100);
  }

  @Test
  void next_aClaimCutByItsBytes_asksNoMoreThanFit() {
    ClaimSize sizes = new ClaimSize(100, 1_000);
    assertThat(sizes.next(800, 300, true)).as("300 rows filled the budget").isEqualTo(300);
    assertThat(sizes.next(300, 300, true)).as("still cut: no growth").isEqualTo(300);
    assertThat(sizes.next(300, 40, true)).as("never below the first").isEqualTo(100);
    assertThat(sizes.next(100, 1, true)).isEqualTo(100);
  }

  @Test
  void withinPace_aSlowDestination_boundsTheGrowth() {
    // 80 rows a second (a call of ten taking a second, eight in flight) publish 1,880 rows in half
    // of 47 s, more than the largest claim; 10 rows a second publish 235: growth stops there.
    assertThat(asked(new ClaimSize(100, 1_000), 80, 5_000, 5_000, 5_000, 5_000, 5_000))
        .containsExactly(100, 200, 400, 800, 1_000);
    assertThat(asked(new ClaimSize(100, 1_000), 10, 5_000, 5_000, 5_000, 5_000))
        .containsExactly(100, 200, 235, 235);
  }

  @Test
  void withinPace_neverBelowTheFirst_norAboveTheSizeAsked() {
    ClaimSize sizes = new ClaimSize(100, 1_000);
    assertThat(sizes.withinPace(400, Double.NaN, WINDOW)).as("no pace known yet").isEqualTo(100);
    assertThat(sizes.withinPace(400, FAST, 0)).as("no time left to send").isEqualTo(100);
    assertThat(sizes.withinPace(400, 1, WINDOW)).isEqualTo(100);
    assertThat(sizes.withinPace(400, FAST, WINDOW)).isEqualTo(400);
    assertThat(sizes.withinPace(400, FAST, 100)).as("4,000 a second for 50 ms").isEqualTo(200);
  }

  @Test
  void constructor_refusesSizesOutOfOrder() {
    assertThatThrownBy(() -> new ClaimSize(200, 100)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ClaimSize(0, 100)).isInstanceOf(IllegalArgumentException.class);
  }
}
