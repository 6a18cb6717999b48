package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The pointer is exactly what payloadoffloading-common's PayloadS3Pointer.toJson() writes (Jackson
 * with default typing, so a wrapper array: class name, then the object), which the SQS and SNS
 * Extended Client Libraries read.
 */
class PayloadPointerTest {
  private final PayloadPointer pointer =
      new PayloadPointer("orders-payloads", "outbox-payloads/0192d3c4-5e6f", 2_097_163);

  @Test
  void messageBody_isTheLibrariesPointer_byteForByte() {
    assertThat(pointer.messageBody())
        .isEqualTo(
            "[\"software.amazon.payloadoffloading.PayloadS3Pointer\","
                + "{\"s3BucketName\":\"orders-payloads\",\"s3Key\":\"outbox-payloads/0192d3c4-5e6f\"}]");
  }

  @Test
  void eventDetail_isAJsonObject_withThePointerAndTheSize() {
    assertThat(pointer.eventDetail())
        .isEqualTo(
            "{\"payloadS3Pointer\":{\"s3BucketName\":\"orders-payloads\","
                + "\"s3Key\":\"outbox-payloads/0192d3c4-5e6f\"},\"extendedPayloadSize\":2097163}");
  }

  @Test
  void aKeyWithQuotesOrBackslashes_isEscapedAsJackson_escapesIt() {
    assertThat(new PayloadPointer("b", "a\"b\\c", 1).messageBody())
        .endsWith("\"s3Key\":\"a\\\"b\\\\c\"}]");
  }

  @Test
  void theSizeAttribute_countsItsNameTypeAndDigits() {
    assertThat(pointer.sizeAttributeBytes())
        .isEqualTo("ExtendedPayloadSize".length() + "Number".length() + "2097163".length());
  }
}
