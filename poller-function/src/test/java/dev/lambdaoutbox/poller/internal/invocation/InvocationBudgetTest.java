package dev.lambdaoutbox.poller.internal.invocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InvocationBudgetTest {
  private final AtomicLong remaining = new AtomicLong(60_000);
  private final InvocationBudget budget =
      new InvocationBudget(
          remaining::get, Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofSeconds(30));

  @Test
  void mayClaim_onlyWhileOneCallStillFitsBeforeTheMargin() {
    remaining.set(13_000);
    assertThat(budget.mayClaim()).isTrue();
    remaining.set(12_999);
    assertThat(budget.mayClaim()).isFalse();
  }

  @Test
  void mayStartCall_notOnceTheCallCouldOutlastTheLease() {
    long atClaim = 60_000;
    remaining.set(atClaim - 17_000); // 17 s in: 17 + 10 + 3 = 30, just fits the lease
    assertThat(budget.mayStartCall(atClaim)).isTrue();
    remaining.set(atClaim - 17_001);
    assertThat(budget.mayStartCall(atClaim)).isFalse();
  }

  @Test
  void mayStartCall_notOnceTheCallCouldOutlastTheInvocation() {
    remaining.set(12_000);
    assertThat(budget.mayStartCall(12_500)).isFalse();
  }

  @Test
  void waitAllowance_isWhatLeavesTheCallWholeBeforeTheLeaseAndTheMargin() {
    long atClaim = 60_000;
    remaining.set(atClaim - 5_000); // the lease leaves 30 - 5 - 10 - 3 = 12 s; the invocation 42
    assertThat(budget.waitAllowanceMillis(atClaim)).isEqualTo(12_000);
    remaining.set(20_000); // claimed just now: the invocation leaves 20 - 3 - 10 = 7 s
    assertThat(budget.waitAllowanceMillis(20_000)).isEqualTo(7_000);
    remaining.set(12_000);
    assertThat(budget.waitAllowanceMillis(12_000)).isNegative();
  }

  @Test
  void mayStartUpload_onlyWhileTheUploadAndThePublishAfterItFitTheLeaseAndTheInvocation() {
    long atClaim = 60_000;
    remaining.set(atClaim - 7_000); // 7 s in: 7 + 10 + 10 + 3 = 30, just fits the lease
    assertThat(budget.mayStartUpload(atClaim)).isTrue();
    assertThat(budget.mayStartCall(atClaim)).isTrue();
    remaining.set(atClaim - 7_001);
    assertThat(budget.mayStartUpload(atClaim)).isFalse();
    assertThat(budget.mayStartCall(atClaim)).as("a publish alone still fits").isTrue();

    remaining.set(23_000); // 20 s of calls and the 3 s margin
    assertThat(budget.mayStartUpload(23_000)).isTrue();
    remaining.set(22_999);
    assertThat(budget.mayStartUpload(22_999)).isFalse();
  }

  @Test
  void maySleep_onlyWhenAClaimStillFitsAfterwards() {
    remaining.set(13_200);
    assertThat(budget.maySleep(Duration.ofMillis(200))).isTrue();
    assertThat(budget.maySleep(Duration.ofMillis(201))).isFalse();
  }
}
