package dev.lambdaoutbox.store.dataapi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.dataapi.internal.DataApiErrors.Kind;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.rdsdata.model.AccessDeniedException;
import software.amazon.awssdk.services.rdsdata.model.BadRequestException;
import software.amazon.awssdk.services.rdsdata.model.DatabaseErrorException;
import software.amazon.awssdk.services.rdsdata.model.DatabaseResumingException;
import software.amazon.awssdk.services.rdsdata.model.ForbiddenException;
import software.amazon.awssdk.services.rdsdata.model.InternalServerErrorException;
import software.amazon.awssdk.services.rdsdata.model.RdsDataException;
import software.amazon.awssdk.services.rdsdata.model.SecretsErrorException;
import software.amazon.awssdk.services.rdsdata.model.StatementTimeoutException;

class DataApiErrorsTest {
  @Test
  void resumingThrottlingServerErrorsAndTheNetwork_areTransient() {
    assertThat(DataApiErrors.classify(DatabaseResumingException.builder().build()))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(DataApiErrors.classify(InternalServerErrorException.builder().build()))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(DataApiErrors.classify(SdkClientException.create("connection reset")))
        .isEqualTo(Kind.TRANSIENT);
    RdsDataException throttled =
        (RdsDataException)
            RdsDataException.builder()
                .statusCode(400)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("ThrottlingException").build())
                .build();
    assertThat(DataApiErrors.classify(throttled)).isEqualTo(Kind.TRANSIENT);
  }

  @Test
  void databaseErrors_areReadFromTheServersMessage() {
    assertThat(DataApiErrors.classify(bad("ERROR: deadlock detected\n  Detail: ...")))
        .isEqualTo(Kind.DEADLOCK);
    assertThat(
            DataApiErrors.classify(
                database(
                    "Database error code: 1213. Message: Deadlock found when trying to get"
                        + " lock; try restarting transaction")))
        .isEqualTo(Kind.DEADLOCK);
    assertThat(
            DataApiErrors.classify(
                bad("ERROR: duplicate key value violates unique constraint \"x_pk\"")))
        .isEqualTo(Kind.DUPLICATE_KEY);
    assertThat(DataApiErrors.classify(database("Duplicate entry 'k' for key 'x_idem_uq'")))
        .isEqualTo(Kind.DUPLICATE_KEY);
    assertThat(DataApiErrors.classify(bad("ERROR: relation \"nowhere\" does not exist")))
        .isEqualTo(Kind.OTHER);
    assertThat(DataApiErrors.classify(StatementTimeoutException.builder().build()))
        .isEqualTo(Kind.OTHER);
  }

  @Test
  void refusals_sayWhoRefused() {
    assertThat(DataApiErrors.classify(AccessDeniedException.builder().build()))
        .isEqualTo(Kind.ACCESS_DENIED);
    assertThat(DataApiErrors.classify(ForbiddenException.builder().build()))
        .isEqualTo(Kind.ACCESS_DENIED);
    assertThat(DataApiErrors.classify(SecretsErrorException.builder().build()))
        .isEqualTo(Kind.LOGIN_REFUSED);
    assertThat(DataApiErrors.classify(bad("FATAL: password authentication failed for user")))
        .isEqualTo(Kind.LOGIN_REFUSED);
  }

  private static BadRequestException bad(String message) {
    return BadRequestException.builder().message(message).build();
  }

  private static DatabaseErrorException database(String message) {
    return DatabaseErrorException.builder().message(message).build();
  }
}
