package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
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
 * a replay holds the name the request declared, as declared, the Cognito identity Lambda took from
 * the call's credentials, and the Lambda request id that CloudTrail's record of the {@code Invoke}
 * call carries. A client context, which the caller writes, changes none of them.
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
  void theAuditHoldsTheDeclaredNameTheCognitoIdentityAndTheRequestId_noClientContext(
      TestDatabase db) throws Exception {
    OutboxTables tables = db.createTables("auditid");
    try {
      DeadLetterTables rows = new DeadLetterTables(db, tables);
      DeadLetter withIdentity = deadLetter().build();
      DeadLetter claimOnly = deadLetter().build();
      DeadLetter forgedContext = deadLetter().build();
      rows.seed(withIdentity, claimOnly, forgedContext);
      Map<String, String> env =
          PackagedFunction.testBedEnvironment(db, tables, TestEndpoints.aws());
      OutboxFunction fn = OutboxFunction.REPROCESSOR;
      JsonNode first;
      JsonNode second;
      JsonNode third;
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
        third =
            answer(
                runtime.invoke(
                    replay(forgedContext, "carol"),
                    TIMEOUT,
                    Map.of(
                        LambdaRuntimeEmulator.CLIENT_CONTEXT,
                        "{\"client\":{\"installation_id\":\"security-admin\","
                            + "\"app_title\":\"root\"},\"custom\":{},\"env\":{}}")),
                reprocessor);
        audit = answer(runtime.invoke("{\"action\":\"audit\"}", TIMEOUT), reprocessor);
      }

      List<Row> audited = auditRows(db, tables);
      assertThat(audited)
          .containsExactly(
              new Row(
                  "alice@example.com",
                  "alice@example.com",
                  "cognito:eu-west-1:9a2b-pool/eu-west-1:4f1c-id",
                  first.path("requestId").asText()),
              new Row("bob", "bob", null, second.path("requestId").asText()),
              new Row("carol", "carol", null, third.path("requestId").asText()));
      assertThat(
              List.of(
                  first.path("requestId").asText(),
                  second.path("requestId").asText(),
                  third.path("requestId").asText()))
          .doesNotHaveDuplicates();
      JsonNode entries = audit.path("entries"); // newest first
      assertThat(entries.get(2).path("requestedBy").asText()).isEqualTo("alice@example.com");
      assertThat(entries.get(2).path("invokedBy").asText())
          .isEqualTo("cognito:eu-west-1:9a2b-pool/eu-west-1:4f1c-id");
      assertThat(entries.get(0).path("requestedBy").asText()).isEqualTo("carol");
      assertThat(entries.get(0).path("invokedBy").isNull()).isTrue();
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
