package dev.lambdaoutbox.consumer.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A read S3 denies. The test bed's S3 (LocalStack) does not enforce IAM, so no real part can be
 * made to deny a read: this S3 client answers every GetObject with the 403 {@code AccessDenied}
 * that S3 sends. The missing object, the wrong size and no client at all are shown against the test
 * bed's S3 in SqsInboxConsumerClaimCheckTest.
 */
class S3PayloadReaderTest {
  private static final class DenyingS3 implements S3Client {
    @Override
    public <T> T getObject(
        GetObjectRequest request, ResponseTransformer<GetObjectResponse, T> transformer) {
      throw (S3Exception)
          S3Exception.builder()
              .statusCode(403)
              .message("Access Denied")
              .awsErrorDetails(
                  AwsErrorDetails.builder()
                      .errorCode("AccessDenied")
                      .errorMessage("Access Denied")
                      .build())
              .build();
    }

    @Override
    public String serviceName() {
      return "s3";
    }

    @Override
    public void close() {}
  }

  @Test
  void read_denied_isUnavailableNamingBucketKeyAndCode() {
    S3PayloadReader reader =
        new S3PayloadReader(
            new DenyingS3(),
            List.of(new ClaimCheckLocation("123456789012", "claims", "outbox-payloads/")),
            1 << 20);
    PayloadPointer pointer = new PayloadPointer("claims", "outbox-payloads/0191-abc", 300_000);

    assertThatThrownBy(() -> reader.read(pointer))
        .isInstanceOf(PayloadUnavailableException.class)
        .hasMessage(
            "payload: could not read it from S3 (bucket claims, key outbox-payloads/0191-abc):"
                + " 403 AccessDenied")
        .hasCauseInstanceOf(S3Exception.class);
  }

  @Test
  void read_withoutClient_isUnreadableNamingBucketAndKey() {
    PayloadPointer pointer = new PayloadPointer("claims", "outbox-payloads/0191-abc", 300_000);

    assertThatThrownBy(() -> S3PayloadReader.none().read(pointer))
        .isInstanceOf(UnreadableRecordException.class)
        .hasMessageContaining("bucket claims, key outbox-payloads/0191-abc, 300000 bytes")
        .hasMessageContaining("SqsInboxConsumer.builder().s3(S3Client)");
  }

  @Test
  void location_ofAnotherBucketWithTheSamePrefix_orAKeyBesideThePrefix_doesNotHoldIt() {
    ClaimCheckLocation location =
        new ClaimCheckLocation("123456789012", "claims", "outbox-payloads/sns/1/orders/");

    org.assertj.core.api.Assertions.assertThat(
            location.holds("claims", "outbox-payloads/sns/1/orders/0191-abc"))
        .isTrue();
    org.assertj.core.api.Assertions.assertThat(
            location.holds("claims2", "outbox-payloads/sns/1/orders/0191-abc"))
        .isFalse();
    org.assertj.core.api.Assertions.assertThat(
            location.holds("claims", "outbox-payloads/sns/1/orders-x/0191-abc"))
        .isFalse();
  }
}
