package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.docs.DeadLetterCodes;
import dev.lambdaoutbox.docs.DocPages;
import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code json} block of the pages against the reprocessor, on tables of its own: a request
 * (it has an {@code action}) goes through the real handler and must be accepted, filtering only on
 * error codes the poller records; a report (it has a {@code requestId}) may name only fields the
 * handler's own reports of that action have, at the same place; an error (it has an {@code
 * errorType}) names a real exception, and its JSON only fields a real refusal has.
 */
class ReprocessorDocSamplesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<UUID> DOC_IDS =
      List.of(
          UUID.fromString("0195a3c4-8f21-7b9e-a4d2-3c51e0f7b812"),
          UUID.fromString("0195a3c4-9a07-7c13-b6e8-71d2a94c0e35"),
          UUID.fromString("0195a3c4-b3e9-7d41-8f0a-5e26c71d9b04"));

  private static TestDatabase db;
  private static ReprocessorHarness reprocessor;

  /** Action to every field path its real reports have, e.g. {@code deadLetters[].errorCode}. */
  private static final Map<String, Set<String>> REPORTED = new HashMap<>();

  private static final Set<String> ERROR_FIELDS = new TreeSet<>();

  @BeforeAll
  static void realReportsOfEveryAction() throws Exception {
    db = TestEndpoints.postgres();
    reprocessor = new ReprocessorHarness(db, db.createTables("docjson"), 100);
    UUID replayable = UUID.randomUUID();
    UUID alreadyBack = UUID.randomUUID();
    UUID discardable = UUID.randomUUID();
    reprocessor.rows.seed(
        deadLetter().id(replayable).error("NO_DESTINATION", "no route").build(),
        deadLetter().id(alreadyBack).error("NO_DESTINATION", "no route").build(),
        deadLetter().id(discardable).error("InvalidParameterValue", "refused").build());
    for (UUID id : DOC_IDS) {
      reprocessor.rows.seed(deadLetter().id(id).error("NO_DESTINATION", "no route").build());
    }
    reprocessor.rows.seedPending(alreadyBack, null);
    seedWaitingRow();
    String ids = "[\"" + replayable + "\",\"" + alreadyBack + "\"]";
    for (String request :
        List.of(
            "{\"action\":\"list\",\"requestedBy\":\"docs\"}",
            "{\"action\":\"replay\",\"requestedBy\":\"docs\",\"dryRun\":true,\"ids\":" + ids + "}",
            "{\"action\":\"replay\",\"requestedBy\":\"docs\",\"filter\":{\"errorCode\":"
                + "\"NO_DESTINATION\"},\"limit\":1}",
            "{\"action\":\"replay\",\"requestedBy\":\"docs\",\"reason\":\"docs\",\"ids\":"
                + ids
                + "}",
            "{\"action\":\"discard\",\"requestedBy\":\"docs\",\"reason\":\"docs\",\"dryRun\":true,"
                + "\"ids\":[\""
                + discardable
                + "\"]}",
            "{\"action\":\"discard\",\"requestedBy\":\"docs\",\"reason\":\"docs\",\"ids\":[\""
                + discardable
                + "\"]}",
            "{\"action\":\"audit\",\"requestedBy\":\"docs\"}",
            "{\"action\":\"audit\",\"requestedBy\":\"docs\",\"filter\":{\"action\":\"REPLAY\","
                + "\"requestedBy\":\"docs\",\"from\":\"2000-01-01T00:00:00Z\"}}")) {
      JsonNode report = reprocessor.invoke(request);
      paths(
          report,
          "",
          REPORTED.computeIfAbsent(report.get("action").asText(), a -> new TreeSet<>()));
    }
    InvalidRequestException refused =
        catchThrowableOfType(
            InvalidRequestException.class,
            () -> reprocessor.invoke("{\"action\":\"list\",\"filter\":{\"evenType\":\"x\"}}"));
    paths(JSON.readTree(refused.getMessage()), "", ERROR_FIELDS);
  }

  /**
   * One outbox row waiting for a topic marked misconfigured, as the poller leaves it, so that the
   * list report has its {@code waiting} section.
   */
  private static void seedWaitingRow() throws Exception {
    String topic = "arn:aws:sns:us-east-1:123456789012:orders-v2";
    String key =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(topic.getBytes(StandardCharsets.UTF_8)));
    UUID waiting = UUID.randomUUID();
    reprocessor.rows.seedPending(waiting, null);
    OutboxTables tables = reprocessor.tables;
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO "
              + tables.destinationHealth()
              + " (destination_key, destination, state, error_code, error_reason, down_since,"
              + " failed_probes, next_probe_at, updated_at) VALUES ('"
              + key
              + "', '"
              + topic
              + "', 'MISCONFIGURED', 'NotFound', 'Topic does not exist', now(), 3,"
              + " now() + interval '1 minute', now())");
      st.execute(
          "UPDATE "
              + tables.messages()
              + " SET waiting_for = '"
              + key
              + "', destination = '"
              + topic
              + "', last_error_code = 'NotFound', next_attempt_at = now() + interval '1 minute'"
              + " WHERE id = '"
              + waiting
              + "'");
    }
  }

  @AfterAll
  static void dropTables() {
    if (reprocessor != null) {
      reprocessor.close();
      db.dropTables(reprocessor.tables);
    }
  }

  @Test
  void everyJsonBlock_isARequestTheHandlerAccepts_orAReportOrErrorItReallyGives() throws Exception {
    List<CodeBlock> blocks =
        DocPages.blocks("json").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    assertThat(blocks).as("the pages' json blocks").hasSizeGreaterThan(5);
    List<String> problems = new ArrayList<>();
    for (CodeBlock block : blocks) {
      JsonNode sample = JSON.readTree(block.text());
      if (sample.has("errorType")) {
        assertThatCode(() -> Class.forName(sample.get("errorType").asText()))
            .as("%s names a real exception", block)
            .doesNotThrowAnyException();
        Set<String> fields = new TreeSet<>();
        paths(JSON.readTree(sample.get("errorMessage").asText()), "", fields);
        fields.removeAll(ERROR_FIELDS);
        if (!fields.isEmpty()) {
          problems.add(block + ": fields a refusal does not have: " + fields);
        }
      } else if (sample.has("requestId")) {
        String action = sample.path("action").asText();
        assertThat(REPORTED).as("%s: a report of a known action", block).containsKey(action);
        Set<String> fields = new TreeSet<>();
        paths(sample, "", fields);
        fields.removeAll(REPORTED.get(action));
        if (!fields.isEmpty()) {
          problems.add(block + ": fields a " + action + " report does not have: " + fields);
        }
      } else {
        assertThat(sample.has("action")).as("%s: a request, report or error", block).isTrue();
        String code = sample.path("filter").path("errorCode").asText(null);
        if (code != null && !DeadLetterCodes.recordedByThePoller(code)) {
          problems.add(block + ": the poller never dead-letters with " + code);
        }
        try {
          reprocessor.invoke(block.text());
        } catch (InvalidRequestException e) {
          // The samples send events to topics of an example account, which do not exist here: the
          // existence check, made after the whole request was accepted, is the one refusal left
          // (DestinationOverrideContract tests that check against real topics and queues).
          JsonNode refusal = JSON.readTree(e.getMessage());
          boolean onlyMissing =
              refusal.path("field").asText().equals("destination")
                  && refusal.path("message").asText().contains(":123456789012:")
                  && refusal.path("message").asText().contains("does not exist");
          if (!onlyMissing) {
            problems.add(block + ": refused: " + e.getMessage());
          }
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void aReportFieldTheHandlerDoesNotGive_isFound() {
    Set<String> fields = new TreeSet<>();
    paths(JSON.createObjectNode().put("action", "list").put("deadLeters", 1), "", fields);
    fields.removeAll(REPORTED.get("list"));
    assertThat(fields).as("the test can fail").containsExactly("deadLeters");
  }

  /** Every field path of {@code node}: {@code a.b}, arrays as {@code a[]}; {@code …} skipped. */
  private static void paths(JsonNode node, String prefix, Set<String> into) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (field.getKey().equals("…")) {
          continue;
        }
        String path = prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey();
        into.add(path);
        paths(field.getValue(), path, into);
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        paths(element, prefix + "[]", into);
      }
    }
  }
}
