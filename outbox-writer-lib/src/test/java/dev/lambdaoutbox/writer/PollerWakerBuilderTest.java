package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad settings fail at construction, naming the setting. */
class PollerWakerBuilderTest {
  @Test
  void aBlankFunctionName_isRefused_namingIt() {
    assertThatThrownBy(() -> PollerWaker.builder().functionName("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("functionName: must not be blank");
    assertThatThrownBy(() -> PollerWaker.builder().functionName(null))
        .hasMessageStartingWith("functionName: must not be blank");
  }

  @Test
  void aFunctionNotQualifiedWithTheAliasLive_isRefused_givingTheNameToUse() {
    assertThatThrownBy(() -> PollerWaker.builder().functionName("outbox-poller"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "functionName: 'outbox-poller' names the poller function without its alias")
        .hasMessageContaining("give 'outbox-poller:live' (the stack's WakeUpFunctionArn output)");
    String arn = "arn:aws:lambda:eu-west-1:123456789012:function:outbox-PollerFunction-AbC";
    assertThatThrownBy(() -> PollerWaker.builder().functionName(arn))
        .hasMessageContaining("give '" + arn + ":live'");
    assertThatThrownBy(() -> PollerWaker.builder().functionName(arn + ":7"))
        .hasMessageContaining("names the poller's version or alias '7'")
        .hasMessageContaining("give '" + arn + ":live'");
    assertThatThrownBy(() -> PollerWaker.builder().functionName("123456789012:function:p:$LATEST"))
        .hasMessageContaining("give '123456789012:function:p:live'");
    assertThatThrownBy(() -> PollerWaker.builder().functionName("arn:aws:sns:x"))
        .hasMessageContaining("is not a Lambda function name or ARN");
  }

  @Test
  void theAliasLive_isTakenAsANameAPartialArnOrAnArn() {
    for (String name :
        List.of(
            "outbox-poller:live",
            "123456789012:function:outbox-poller:live",
            "arn:aws:lambda:eu-west-1:123456789012:function:outbox-PollerFunction-AbC:live",
            "arn:aws-cn:lambda:cn-north-1:123456789012:function:p:live")) {
      assertThatCode(() -> PollerWaker.builder().functionName(name)).doesNotThrowAnyException();
    }
  }

  @Test
  void noFunctionName_isRefusedAtBuild_namingIt() {
    assertThatThrownBy(() -> PollerWaker.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("functionName: not set");
  }

  @Test
  void anIntervalOutOfRange_isRefused_namingItAndTheRange() {
    assertThatThrownBy(() -> PollerWaker.builder().interval(Duration.ofMillis(9)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("interval: must be 10 ms to 60000 ms, was 9 ms");
    assertThatThrownBy(() -> PollerWaker.builder().interval(Duration.ofSeconds(61)))
        .hasMessage("interval: must be 10 ms to 60000 ms, was 61000 ms");
  }
}
