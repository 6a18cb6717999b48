package dev.lambdaoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

class SqsInboxConsumerBuilderTest {
  private static final Jdbi JDBI = Jdbi.create("jdbc:postgresql://127.0.0.1:1/none");

  @Test
  void build_withoutConsumerName_refusesNamingIt() {
    assertThatThrownBy(() -> SqsInboxConsumer.builder().jdbi(JDBI).handler((h, e) -> {}).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("consumerName: is required");
  }

  @Test
  void build_withoutJdbiOrHandler_refusesNamingIt() {
    assertThatThrownBy(
            () -> SqsInboxConsumer.builder().consumerName("shop").handler((h, e) -> {}).build())
        .hasMessageStartingWith("jdbi: is required");
    assertThatThrownBy(() -> SqsInboxConsumer.builder().jdbi(JDBI).consumerName("shop").build())
        .hasMessageStartingWith("handler: is required");
  }

  @Test
  void consumerName_blankOrTooLong_isRefusedNamingIt() {
    assertThatThrownBy(() -> SqsInboxConsumer.builder().consumerName(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("consumerName: must not be blank");
    assertThatThrownBy(() -> SqsInboxConsumer.builder().consumerName("x".repeat(256)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("consumerName: has 256 characters");
  }
}
