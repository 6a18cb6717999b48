package dev.lambdaoutbox.store.model.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailureFingerprintTest {
  @Test
  void mask_hidesWhatVariesFromRowToRow_andKeepsWhatNamesTheCause() {
    assertThat(
            FailureFingerprint.mask(
                "User: arn:aws:sts::123456789012:assumed-role/poller/i-0abc is not authorized on"
                    + " arn:aws:sns:eu-west-1:123456789012:orders-42 (Request ID:"
                    + " 3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b)"))
        .isEqualTo(
            "User: arn:aws:sts::<account>:<resource> is not authorized on"
                + " arn:aws:sns:eu-west-1:<account>:<resource> (Request ID: <uuid>)");
    assertThat(
            FailureFingerprint.mask(
                "queue https://sqs.us-east-1.amazonaws.com/123456789012/orders-q: 'order-7' is"
                    + " \"big\", 262145 bytes > 262144, trace 9f86d081884c7d65"))
        .isEqualTo(
            "queue https://sqs.us-east-1.amazonaws.com/<account>/<queue>: '<value>' is"
                + " \"<value>\", <n> bytes > <n>, trace <id>");
  }

  @Test
  void mask_isBounded_andEmptyForNoReason() {
    assertThat(FailureFingerprint.mask(null)).isEmpty();
    assertThat(FailureFingerprint.mask("x".repeat(10_000)))
        .hasSize(FailureFingerprint.MAX_MASKED_REASON);
    // A reason cannot smuggle in the marks the masking sets ARNs aside with.
    assertThat(FailureFingerprint.mask("a\u0001a\u0001 b")).isEqualTo("a a  b");
  }

  @Test
  void of_groupsByCodeMaskedReasonEventTypeAndDestination() {
    FailureFingerprint a = FailureFingerprint.of("NotFound", "order 1 lost", "OrderPlaced", "t");
    assertThat(FailureFingerprint.of("NotFound", "order 2 lost", "OrderPlaced", "t")).isEqualTo(a);
    assertThat(FailureFingerprint.of("Other", "order 2 lost", "OrderPlaced", "t").id())
        .isNotEqualTo(a.id());
    assertThat(FailureFingerprint.of("NotFound", "order 2 lost", "OrderShipped", "t").id())
        .isNotEqualTo(a.id());
    assertThat(FailureFingerprint.of("NotFound", "order 2 lost", "OrderPlaced", null).id())
        .isNotEqualTo(a.id())
        .hasSize(32)
        .matches("[0-9a-f]{32}");
  }
}
