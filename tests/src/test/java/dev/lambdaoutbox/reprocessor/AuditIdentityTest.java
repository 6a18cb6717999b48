package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packaged reprocessor, run by AWS's runtime interface client with what Lambda passes beside an
 * invocation (the Cognito identity and client context headers of the Runtime API): the audit row of
 * a replay holds the name the request claimed, the identity the invocation carried, and the Lambda
 * request id that CloudTrail's record of the {@code Invoke} call carries; the identity, not the
 * claimed name, is who asked.
 */
class AuditIdentityTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  record Row(String requestedBy, String claimedBy, String invokedBy, String requestId) {}

  static Stream<TestDatabase> databases() {
    return Stream.of(TestEndpoints.postgres(), TestEndpoints.mysql());
  }

  @ParameterizedTest
  @MethodSource("databases")
  void theAuditHoldsTheClaimTheInvokersIdentityAndTheRequestId_andTheIdentityIsWhoAsked(
      TestDatabase db) throws Exception {
    OutboxTables tables = db.createTables("auditid");
    try {
      DeadLetterTables rows = new DeadLetterTables(db, tables);
      DeadLetter withIdentity = deadLetter().build();
      DeadLetter claimOnly = deadLetter().build();
      rows.seed(withIdentity, claimOnly);
      Map<String, String> env =
          PackagedFunction.testBedEnvironment(db, tables, TestEndpoints.aws());
      OutboxFunction fn = OutboxFunction.REPROCESSOR;
      JsonNode first;
      JsonNode second;
      JsonNode audit;
      try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
          PackagedFunction reprocessor =
              PackagedFunction.start(fn.module(), fn.handler(), env, runtime)) {
        first =
            answer(
                runtime.invoke(
                    replay(withIdentity, "alice@example.com"),
                    TIMEOUT,
                    Map.of(
                        LambdaRuntimeEmulator.COGNITO_IDENTITY,
                        "{\"cognitoIdentityId\":\"eu-west-1:4f1c-id\","
                            + "\"cognitoIdentityPoolId\":\"eu-west-1:9a2b-pool\"}",
                        LambdaRuntimeEmulator.CLIENT_CONTEXT,
                        "{\"client\":{\"installation_id\":\"ops-laptop-42\","
                            + "\"app_title\":\"outbox-ops\"},\"custom\":{},\"env\":{}}")),
                reprocessor);
        second = answer(runtime.invoke(replay(claimOnly, "bob"), TIMEOUT), reprocessor);
        audit = answer(runtime.invoke("{\"action\":\"audit\"}", TIMEOUT), reprocessor);
      }

      List<Row> audited = auditRows(db, tables);
      assertThat(audited)
          .containsExactly(
              new Row(
                  "cognito:eu-west-1:9a2b-pool/eu-west-1:4f1c-id",
                  "alice@example.com",
                  "cognito:eu-west-1:9a2b-pool/eu-west-1:4f1c-id; client:ops-laptop-42 (outbox-ops)",
                  first.path("requestId").asText()),
              new Row("bob", "bob", null, second.path("requestId").asText()));
      assertThat(first.path("requestId").asText()).isNotEqualTo(second.path("requestId").asText());
      assertThat(audit.path("entries").get(1).path("claimedBy").asText())
          .isEqualTo("alice@example.com");
      assertThat(audit.path("entries").get(1).path("invokedBy").asText())
          .startsWith("cognito:eu-west-1:9a2b-pool/eu-west-1:4f1c-id");
      assertThat(audit.path("entries").get(0).path("invokedBy").isNull()).isTrue();
    } finally {
      db.dropTables(tables);
    }
  }

  private static String replay(DeadLetter row, String requestedBy) {
    return "{\"action\":\"replay\",\"ids\":[\""
        + row.id()
        + "\"],\"requestedBy\":\""
        + requestedBy
        + "\",\"reason\":\"audit identity\"}";
  }

  private static JsonNode answer(LambdaRuntimeEmulator.Result result, PackagedFunction fn)
      throws Exception {
    assertThat(result.failed()).as("%s\n%s", result.body(), fn.output()).isFalse();
    return JSON.readTree(result.body());
  }

  private static List<Row> auditRows(TestDatabase db, OutboxTables tables) throws Exception {
    List<Row> rows = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT requested_by, claimed_by, invoked_by, request_id FROM "
                    + tables.deadLetterAudit()
                    + " ORDER BY audit_id")) {
      while (rs.next()) {
        rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
      }
    }
    return rows;
  }
}
