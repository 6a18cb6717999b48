package dev.lambdaoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

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

  @Test
  void build_withS3ButNoClaimCheckLocation_orALocationWithoutS3_refusesNamingWhatIsMissing() {
    try (S3Client s3 = S3Client.builder().region(Region.US_EAST_1).build()) {
      assertThatThrownBy(() -> valid().s3(s3).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("claimCheckLocation: is required with s3");
    }
    assertThatThrownBy(
            () -> valid().claimCheckLocation("123456789012", "claims", "outbox/").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("s3: is required with claimCheckLocation");
  }

  @Test
  void claimCheckLocation_badOwnerBucketOrPrefix_isRefusedNamingIt() {
    assertThatThrownBy(() -> valid().claimCheckLocation("1234", "claims", "outbox/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bucketOwner: '1234' is not an AWS account id");
    assertThatThrownBy(
            () -> valid().claimCheckLocation("123456789012", "arn:aws:s3:::claims", "outbox/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bucket: 'arn:aws:s3:::claims' is not an S3 bucket name");
    assertThatThrownBy(() -> valid().claimCheckLocation("123456789012", "claims", "/outbox/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("keyPrefix: '/outbox/' begins with '/'");
  }

  @Test
  void claimCheckMaxBytes_outOfRange_isRefused() {
    assertThatThrownBy(() -> valid().claimCheckMaxBytes(0))
        .hasMessageStartingWith("claimCheckMaxBytes: must be 1 to 268435456");
    assertThatThrownBy(() -> valid().claimCheckMaxBytes(256L * 1024 * 1024 + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static SqsInboxConsumer.Builder valid() {
    return SqsInboxConsumer.builder().jdbi(JDBI).consumerName("shop").handler((h, e) -> {});
  }
}
