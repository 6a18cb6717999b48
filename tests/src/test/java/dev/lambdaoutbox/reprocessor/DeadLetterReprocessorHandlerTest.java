package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.T0;
import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static dev.lambdaoutbox.reprocessor.ReprocessorHarness.reprocessorContext;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.reprocessor.internal.request.RequestParser;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The handler's actions end to end on PostgreSQL, as an operator would invoke them. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadLetterReprocessorHandlerTest {
  private final TestDatabase db = TestEndpoints.postgres();
  private OutboxTables tables;
  private ReprocessorHarness reprocessor;
  private DeadLetterTables rows;
  private SqsClient sqs;

  /** A queue of the test bed's: a destination override must exist. */
  private String quarantineQueue;

  @BeforeAll
  void createTables() {
    tables = db.createTables("dlh");
    sqs = TestEndpoints.aws().sqs();
    quarantineQueue =
        sqs.createQueue(r -> r.queueName("dlh-quarantine-" + tables.prefix().replace("_", "")))
            .queueUrl();
  }

  @AfterAll
  void dropTables() {
    db.dropTables(tables);
    sqs.deleteQueue(r -> r.queueUrl(quarantineQueue));
    sqs.close();
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM " + tables.messages());
      st.execute("DELETE FROM " + tables.deadLetters());
      st.execute("DELETE FROM " + tables.deadLetterAudit());
    }
    reprocessor = new ReprocessorHarness(db, tables, 100);
    rows = reprocessor.rows;
  }

  @AfterEach
  void close() {
    reprocessor.close();
  }

  @Test
  void list_showsEachRowsErrorAttemptsAndTimes_andSummarizesTheWholeFilteredSet() {
    DeadLetter first = deadLetter().deadAt(T0).attempts(8).build();
    DeadLetter second = deadLetter().deadAt(T0.plusSeconds(1)).build();
    DeadLetter third =
        deadLetter().deadAt(T0.plusSeconds(2)).error("RETRIES_EXHAUSTED", "x").build();
    rows.seed(first, second, third, deadLetter().eventType("Other").build());

    JsonNode page1 =
        reprocessor.invoke(
            "{\"action\":\"list\",\"filter\":{\"eventType\":\"OrderPlaced\"},\"limit\":2}");

    assertThat(page1.path("count").asInt()).isEqualTo(2);
    JsonNode row = page1.path("deadLetters").get(0);
    assertThat(row.path("id").asText()).isEqualTo(first.id().toString());
    assertThat(row.path("errorCode").asText()).isEqualTo("SNS_NOT_FOUND");
    assertThat(row.path("errorReason").asText()).isEqualTo("Topic does not exist");
    assertThat(row.path("attempts").asInt()).isEqualTo(8);
    assertThat(row.path("firstFailedAt").asText()).isEqualTo(first.firstFailedAt().toString());
    assertThat(row.path("lastFailedAt").asText()).isEqualTo(first.lastFailedAt().toString());
    assertThat(row.path("deadAt").asText()).isEqualTo(first.deadAt().toString());
    assertThat(row.path("payload").asText()).isEqualTo(first.payload());
    assertThat(row.path("payloadTruncated").asBoolean()).isFalse();
    JsonNode summary = page1.path("summary");
    assertThat(summary.path("total").asInt()).isEqualTo(3);
    assertThat(summary.path("byErrorCodeAndEventType").get(0).path("count").asInt()).isEqualTo(2);

    JsonNode page2 =
        reprocessor.invoke(
            "{\"action\":\"list\",\"filter\":{\"eventType\":\"OrderPlaced\"},\"limit\":2,"
                + "\"cursor\":\""
                + page1.path("nextCursor").asText()
                + "\"}");
    assertThat(page2.path("deadLetters").get(0).path("id").asText())
        .isEqualTo(third.id().toString());
    assertThat(page2.path("nextCursor").isNull()).isTrue();
  }

  @Test
  void list_cutsLongPayloadsAtAThousandCharacters() {
    rows.seed(deadLetter().payload("{\"blob\":\"" + "x".repeat(5000) + "\"}").build());

    JsonNode row = reprocessor.invoke("{\"action\":\"list\"}").path("deadLetters").get(0);

    assertThat(row.path("payload").asText()).hasSize(1000);
    assertThat(row.path("payloadLength").asInt()).isEqualTo(5011);
    assertThat(row.path("payloadTruncated").asBoolean()).isTrue();
  }

  @Test
  void list_logsCountsNotThePage_whileReplayLogsItsReport() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);

    reprocessor.invoke("{\"action\":\"list\"}");
    reprocessor.invoke("{\"action\":\"replay\",\"ids\":[\"" + dead.id() + "\"]}");

    List<JsonNode> logs = reprocessor.logs();
    assertThat(logs.get(0).path("message").asText()).isEqualTo("list done");
    assertThat(logs.get(0).path("count").asInt()).isEqualTo(1);
    assertThat(logs.get(0).has("report")).isFalse();
    assertThat(logs.get(1).path("report").path("replayed").get(0).asText())
        .isEqualTo(dead.id().toString());
  }

  @Test
  void replayByIds_isRealByDefault_andAuditsTheRequester() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    FakeLambdaContext context = reprocessorContext();

    JsonNode report =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"ids\":[\""
                + dead.id()
                + "\"],\"requestedBy\":\"alice@example.com\",\"reason\":\"topic recreated\"}",
            context);

    assertThat(report.path("dryRun").asBoolean()).isFalse();
    assertThat(report.path("replayed"))
        .extracting(JsonNode::asText)
        .containsExactly(dead.id().toString());
    assertThat(report.path("counts").path("replayed").asInt()).isEqualTo(1);
    assertThat(rows.outboxIds()).containsExactly(dead.id());
    assertThat(rows.deadIds()).isEmpty();
    assertThat(store().auditTrail(dead.id()))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.action()).isEqualTo("REPLAY");
              assertThat(e.requestedBy()).isEqualTo("alice@example.com");
              assertThat(e.requestId()).isEqualTo(context.awsRequestId());
              assertThat(e.reason()).isEqualTo("topic recreated");
            });
  }

  @Test
  void replay_withoutRequestedBy_auditsTheLambdaRequestId() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    FakeLambdaContext context = reprocessorContext();

    JsonNode report =
        reprocessor.invoke("{\"action\":\"replay\",\"ids\":[\"" + dead.id() + "\"]}", context);

    String expected = "unattributed (lambda request " + context.awsRequestId() + ")";
    assertThat(report.path("requestedBy").asText()).isEqualTo(expected);
    assertThat(store().auditTrail(dead.id()).get(0).requestedBy()).isEqualTo(expected);
  }

  @Test
  void replayByFilter_isADryRunByDefault_andChangesNothing() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead, deadLetter().error("OTHER", "x").build());
    String before = rows.snapshot();

    JsonNode report =
        reprocessor.invoke("{\"action\":\"replay\",\"filter\":{\"errorCode\":\"SNS_NOT_FOUND\"}}");

    assertThat(report.path("dryRun").asBoolean()).isTrue();
    assertThat(report.path("wouldReplay"))
        .extracting(JsonNode::asText)
        .containsExactly(dead.id().toString());
    assertThat(report.has("replayed")).isFalse();
    assertThat(report.path("message").asText()).startsWith("Dry run: nothing was changed.");
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  void replayByFilter_withDryRunFalse_replaysUpToTheLimit_andSaysMoreMatch() {
    for (int i = 0; i < 3; i++) {
      rows.seed(deadLetter().deadAt(T0.plusSeconds(i)).build());
    }

    JsonNode report =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"filter\":{\"aggregateType\":\"Order\"},\"dryRun\":false,"
                + "\"limit\":2,\"destination\":\""
                + quarantineQueue
                + "\"}");

    assertThat(report.path("replayed")).hasSize(2);
    assertThat(report.path("moreMatching").asBoolean()).isTrue();
    assertThat(report.path("destinationOverride").asText()).isEqualTo(quarantineQueue);
    assertThat(rows.outboxRows()).extracting(OutboxRow::destination).containsOnly(quarantineQueue);
    assertThat(rows.deadIds()).hasSize(1);
  }

  @Test
  void replayAll_needsTheExplicitFlag_andThenTakesEveryDeadLetter() {
    rows.seed(deadLetter().build(), deadLetter().eventType("Other").build());

    JsonNode report = reprocessor.invoke("{\"action\":\"replay\",\"all\":true,\"dryRun\":false}");

    assertThat(report.path("replayed")).hasSize(2);
    assertThat(report.path("moreMatching").asBoolean()).isFalse();
    assertThat(rows.deadIds()).isEmpty();
  }

  @Test
  void replayOfTheSameIdsTwice_reportsTheSecondAsSkipped_andTheOutboxHasOneRowPerId() {
    DeadLetter a = deadLetter().build();
    DeadLetter b = deadLetter().build();
    rows.seed(a, b);
    String request = "{\"action\":\"replay\",\"ids\":[\"" + a.id() + "\",\"" + b.id() + "\"]}";

    reprocessor.invoke(request);
    JsonNode second = reprocessor.invoke(request);

    assertThat(second.path("replayed")).isEmpty();
    assertThat(second.path("skipped"))
        .extracting(s -> s.path("reason").asText())
        .containsExactly("ALREADY_IN_OUTBOX", "ALREADY_IN_OUTBOX");
    assertThat(second.path("counts").path("skipped").asInt()).isEqualTo(2);
    assertThat(rows.outboxIds()).containsExactlyInAnyOrder(a.id(), b.id());
  }

  @Test
  void replay_ofARowWhoseIdempotencyKeyIsTaken_skipsAndReportsIt_andReplaysTheRest() {
    DeadLetter clashing = deadLetter().idempotencyKey("invoice-17").build();
    DeadLetter fine = deadLetter().build();
    rows.seed(clashing, fine);
    rows.seedPending(UuidV7.generate(), "invoice-17");

    JsonNode report =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"ids\":[\"" + clashing.id() + "\",\"" + fine.id() + "\"]}");

    assertThat(report.path("replayed"))
        .extracting(JsonNode::asText)
        .containsExactly(fine.id().toString());
    assertThat(report.path("skipped").get(0).path("id").asText())
        .isEqualTo(clashing.id().toString());
    assertThat(report.path("skipped").get(0).path("reason").asText())
        .isEqualTo("IDEMPOTENCY_KEY_TAKEN");
  }

  @Test
  void discard_removesTheRow_andItCanBeRecoveredFromTheAuditByteForByte() {
    String payload = "{\"amount\": 12.50 ,\"memo\":\"naïve café \\u2603\\n\",\"tags\":[ ]}\n";
    DeadLetter dead = deadLetter().payload(payload).build();
    rows.seed(dead);

    JsonNode report =
        reprocessor.invoke(
            "{\"action\":\"discard\",\"ids\":[\""
                + dead.id()
                + "\"],\"reason\":\"duplicate of a corrected order\",\"requestedBy\":\"bob\"}");

    assertThat(report.path("discarded"))
        .extracting(JsonNode::asText)
        .containsExactly(dead.id().toString());
    assertThat(rows.deadIds()).isEmpty();
    DeadLetter recovered = store().auditTrail(dead.id()).get(0).snapshot();
    assertThat(recovered).isEqualTo(dead);
    assertThat(recovered.payload().getBytes(UTF_8)).isEqualTo(payload.getBytes(UTF_8));
  }

  @Test
  void discard_dryRun_reportsWhatWouldGo_andChangesNothing() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    String before = rows.snapshot();

    JsonNode report =
        reprocessor.invoke(
            "{\"action\":\"discard\",\"ids\":[\""
                + dead.id()
                + "\"],\"reason\":\"x\",\"dryRun\":true}");

    assertThat(report.path("wouldDiscard")).hasSize(1);
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  void everyInvocation_emitsReplayedDiscardedAndBacklogMetrics() {
    DeadLetter a = deadLetter().build();
    DeadLetter b = deadLetter().build();
    rows.seed(a, b, deadLetter().build());

    reprocessor.invoke("{\"action\":\"replay\",\"ids\":[\"" + a.id() + "\"]}");
    reprocessor.invoke(
        "{\"action\":\"discard\",\"ids\":[\"" + b.id() + "\"],\"reason\":\"test data\"}");

    List<JsonNode> lines = reprocessor.metrics();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0).path("Replayed").asInt()).isEqualTo(1);
    assertThat(lines.get(0).path("DeadLetterBacklog").asInt()).isEqualTo(2);
    assertThat(lines.get(1).path("Discarded").asInt()).isEqualTo(1);
    assertThat(lines.get(1).path("DeadLetterBacklog").asInt()).isEqualTo(1);
    JsonNode directive = lines.get(0).path("_aws").path("CloudWatchMetrics").get(0);
    assertThat(directive.path("Metrics"))
        .extracting(m -> m.path("Name").asText())
        .containsExactly("Replayed", "Discarded", "DeadLetterBacklog");
  }

  @Test
  void replayThatFailsPartWay_isALambdaError_whoseJsonSaysWhatWasCommitted() throws Exception {
    reprocessor.close();
    reprocessor = new ReprocessorHarness(db, tables, 1);
    DeadLetter ok = deadLetter().build();
    DeadLetter poison = deadLetter().aggregate("Order", "poison").build();
    rows.seed(ok, poison);
    execute(
        "ALTER TABLE "
            + tables.messages()
            + " ADD CONSTRAINT h_poison_ck CHECK (aggregate_id <> 'poison')");
    try {
      assertThatThrownBy(
              () ->
                  reprocessor.invoke(
                      "{\"action\":\"replay\",\"ids\":[\""
                          + ok.id()
                          + "\",\""
                          + poison.id()
                          + "\"]}"))
          .isInstanceOfSatisfying(
              ActionFailedException.class,
              e -> {
                JsonNode error = parse(e.getMessage());
                assertThat(error.path("error").asText()).isEqualTo("ActionFailed");
                assertThat(error.path("committed").path("replayed"))
                    .extracting(JsonNode::asText)
                    .containsExactly(ok.id().toString());
              });
    } finally {
      execute("ALTER TABLE " + tables.messages() + " DROP CONSTRAINT h_poison_ck");
    }
    assertThat(rows.deadIds()).containsExactly(poison.id());
    assertThat(reprocessor.metrics().get(0).path("Replayed").asInt()).isEqualTo(1);
  }

  @Test
  void handlerWiredFromTheEnvironment_servesRequests() throws IOException {
    rows.seed(deadLetter().build());
    DeadLetterReprocessorHandler wired =
        new DeadLetterReprocessorHandler(
            Map.of(
                "OUTBOX_JDBC_URL", db.jdbcUrl(),
                "OUTBOX_DB_USER", db.user(),
                "OUTBOX_DB_PASSWORD", db.password(),
                "OUTBOX_TABLE_PREFIX", tables.prefix()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    wired.handleRequest(
        new ByteArrayInputStream("{\"action\":\"list\"}".getBytes(UTF_8)),
        out,
        reprocessorContext());

    assertThat(parse(out.toString(UTF_8)).path("count").asInt()).isEqualTo(1);
  }

  @Test
  void audit_showsWhoDidWhatWhenAndWhy_withSnapshotAndOverride_andChangesNothing() {
    DeadLetter replayed = deadLetter().eventType("OrderPlaced").build();
    DeadLetter discarded = deadLetter().eventType("OrderShipped").payload(longPayload()).build();
    rows.seed(replayed, discarded);
    FakeLambdaContext replay = reprocessorContext();
    reprocessor.invoke(
        "{\"action\":\"replay\",\"ids\":[\""
            + replayed.id()
            + "\"],\"destination\":\""
            + quarantineQueue
            + "\",\"requestedBy\":\"alice@example.com\",\"reason\":\"topic recreated\"}",
        replay);
    reprocessor.invoke(
        "{\"action\":\"discard\",\"ids\":[\""
            + discarded.id()
            + "\"],\"requestedBy\":\"bob@example.com\",\"reason\":\"load-test order\"}");
    String before = rows.snapshot();
    int logsBefore = reprocessor.logs().size();

    JsonNode report = reprocessor.invoke("{\"action\":\"audit\",\"requestedBy\":\"carol\"}");

    assertThat(rows.snapshot()).as("the audit reads only").isEqualTo(before);
    assertThat(report.path("action").asText()).isEqualTo("audit");
    assertThat(report.path("count").asInt()).isEqualTo(2);
    assertThat(report.path("nextCursor").isNull()).isTrue();
    JsonNode newest = report.path("entries").get(0);
    assertThat(newest.path("action").asText()).isEqualTo("DISCARD");
    assertThat(newest.path("requestedBy").asText()).isEqualTo("bob@example.com");
    assertThat(newest.path("reason").asText()).isEqualTo("load-test order");
    assertThat(newest.path("deadLetterId").asText()).isEqualTo(discarded.id().toString());
    assertThat(Instant.parse(newest.path("at").asText())).isNotNull();
    assertThat(newest.path("destinationOverride").isNull()).isTrue();
    JsonNode snapshot = newest.path("deadLetter");
    assertThat(snapshot.path("eventType").asText()).isEqualTo("OrderShipped");
    assertThat(snapshot.path("errorCode").asText()).isEqualTo(discarded.errorCode());
    assertThat(snapshot.path("payload").asText()).hasSize(1000);
    assertThat(snapshot.path("payloadLength").asInt()).isEqualTo(longPayload().length());
    assertThat(snapshot.path("payloadTruncated").asBoolean()).isTrue();
    JsonNode older = report.path("entries").get(1);
    assertThat(older.path("action").asText()).isEqualTo("REPLAY");
    assertThat(older.path("requestId").asText()).isEqualTo(replay.awsRequestId());
    assertThat(older.path("destinationOverride").asText()).isEqualTo(quarantineQueue);
    assertThat(older.path("deadLetter").path("destination").asText())
        .isEqualTo(replayed.destination());
    assertThat(older.path("deadLetter").path("payload").asText()).isEqualTo(replayed.payload());

    JsonNode log = reprocessor.logs().get(logsBefore);
    assertThat(log.path("message").asText()).isEqualTo("audit done");
    assertThat(log.path("count").asInt()).isEqualTo(2);
    assertThat(log.has("report")).as("a page is not logged").isFalse();
  }

  @Test
  void audit_filtersAndPages_asTheRequestSays() {
    DeadLetter a = deadLetter().build();
    DeadLetter b = deadLetter().build();
    DeadLetter c = deadLetter().build();
    rows.seed(a, b, c);
    for (DeadLetter d : List.of(a, b)) {
      reprocessor.invoke(
          "{\"action\":\"replay\",\"ids\":[\"" + d.id() + "\"],\"requestedBy\":\"alice\"}");
    }
    reprocessor.invoke(
        "{\"action\":\"discard\",\"ids\":[\""
            + c.id()
            + "\"],\"requestedBy\":\"bob\",\"reason\":\"x\"}");

    assertThat(auditedIds("{\"deadLetterId\":\"" + b.id().toString().toUpperCase() + "\"}"))
        .containsExactly(b.id().toString());
    assertThat(auditedIds("{\"requestedBy\":\"alice\"}"))
        .containsExactly(b.id().toString(), a.id().toString());
    assertThat(auditedIds("{\"action\":\"discard\"}")).containsExactly(c.id().toString());
    assertThat(
            auditedIds("{\"from\":\"2000-01-01T00:00:00Z\",\"to\":\"2000-01-02T00:00:00+01:00\"}"))
        .isEmpty();

    JsonNode first =
        reprocessor.invoke(
            "{\"action\":\"audit\",\"filter\":{\"requestedBy\":\"alice\"},\"limit\":1}");
    assertThat(first.path("filter").path("requestedBy").asText()).isEqualTo("alice");
    String cursor = first.path("nextCursor").asText();
    JsonNode second =
        reprocessor.invoke(
            "{\"action\":\"audit\",\"filter\":{\"requestedBy\":\"alice\"},\"limit\":1,"
                + "\"cursor\":\""
                + cursor
                + "\"}");
    assertThat(first.path("entries").get(0).path("deadLetterId").asText())
        .isEqualTo(b.id().toString());
    assertThat(second.path("entries").get(0).path("deadLetterId").asText())
        .isEqualTo(a.id().toString());
    assertThat(second.path("nextCursor").isNull()).isTrue();
  }

  private List<String> auditedIds(String filter) {
    JsonNode report = reprocessor.invoke("{\"action\":\"audit\",\"filter\":" + filter + "}");
    List<String> ids = new ArrayList<>();
    report.path("entries").forEach(e -> ids.add(e.path("deadLetterId").asText()));
    return ids;
  }

  private static String longPayload() {
    return "{\"memo\":\"" + "x".repeat(1500) + "\"}";
  }

  @Test
  void samplePayloadsInTheEventsFolder_areValidRequests() throws IOException {
    for (String name :
        List.of(
            "list.json",
            "replay-by-ids.json",
            "replay-by-filter-dry-run.json",
            "discard.json",
            "audit.json")) {
      byte[] sample = Files.readAllBytes(Path.of("..", "events", name));
      assertThat(RequestParser.parse(sample).action()).isEqualTo(name.split("[-.]")[0]);
    }
  }

  private DeadLetterStore store() {
    return reprocessor.store;
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static JsonNode parse(String json) {
    try {
      return JsonSupport.mapper().readTree(json);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }
}
