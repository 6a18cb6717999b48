package dev.lambdaoutbox.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which messages are claim checks, read as AWS's Extended Client Library reads them. */
class PayloadPointerTest {
  private static final String POINTER =
      "[\"software.amazon.payloadoffloading.PayloadS3Pointer\","
          + "{\"s3BucketName\":\"claims\",\"s3Key\":\"outbox/0191-abc\"}]";

  @Test
  void of_sizeAttributeAndPointerBody_isThePointer() {
    assertThat(PayloadPointer.of(Map.of("ExtendedPayloadSize", "300000"), POINTER))
        .contains(new PayloadPointer("claims", "outbox/0191-abc", 300_000));
  }

  @Test
  void of_legacyAttributeAndLegacyClassName_isThePointer() {
    String legacy =
        POINTER.replace(PayloadPointer.POINTER_CLASS, PayloadPointer.LEGACY_POINTER_CLASS);
    assertThat(PayloadPointer.of(Map.of("SQSLargePayloadSize", "7"), legacy))
        .contains(new PayloadPointer("claims", "outbox/0191-abc", 7));
  }

  @Test
  void of_pointerBodyWithoutSizeAttribute_isAPayloadAsWritten() {
    assertThat(PayloadPointer.of(Map.of("eventId", "x"), POINTER)).isEmpty();
  }

  @Test
  void of_sizeAttributeWithAnotherBody_namesTheBody() {
    assertThatThrownBy(() -> PayloadPointer.of(Map.of("ExtendedPayloadSize", "3"), "{\"a\":1}"))
        .isInstanceOf(UnreadableRecordException.class)
        .hasMessageStartingWith("body: the message has the ExtendedPayloadSize attribute");
  }

  @Test
  void of_sizeNotANumber_namesTheAttribute() {
    assertThatThrownBy(() -> PayloadPointer.of(Map.of("ExtendedPayloadSize", "big"), POINTER))
        .isInstanceOf(UnreadableRecordException.class)
        .hasMessage("ExtendedPayloadSize: 'big' is not a size in bytes");
  }
}
