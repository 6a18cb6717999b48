package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest;
import dev.lambdaoutbox.reprocessor.internal.request.RequestParser;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code scripts/outbox-ops}, the operator's command, as an operator runs it.
 *
 * <p>Local mode for real: the tool runs the packaged reprocessor jar (through scripts/run-main and
 * the Runtime API emulator) on private tables of the test bed's PostgreSQL, named in an env file.
 * The steps follow one another as at 3 a.m.: list, dry run, replay, discard, a refused request;
 * then rows the real poller left waiting for a topic nobody created are listed, retargeted to a
 * queue that exists and dead-lettered.
 *
 * <p>Deployed mode through a stand-in {@code aws} command ({@code OUTBOX_OPS_AWS_CLI}), which
 * records its arguments and answers as the AWS CLI would: an AWS account is the one part no local
 * service can provide. The request it is handed must be the one the real reprocessor parser
 * accepts.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OutboxOpsToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path TOOL = PackagedFunction.projectRoot().resolve("scripts/outbox-ops");
  private static final String A = "0195a3c4-8f21-7b9e-a4d2-3c51e0f7b812";
  private static final String B = "0195a3c4-9a07-7c13-b6e8-71d2a94c0e35";
  private static final String C = "0195a3c4-b3e9-7d41-8f0a-5e26c71d9b04";

  private static final List<String> DRY_RUN_REPLAY =
      List.of("replay", "--error-code", "NotFound", "--event-type", "OrderPlaced", "--dry-run");

  @TempDir static Path dir;

  private static TestDatabase db;
  private static DeadLetterTables rows;
  private static Path envFile;
  private static SqsClient sqs;
  private static String prefix;
  private static String queue;
  private static String missingTopic;

  @BeforeAll
  static void seedDeadLetters() throws IOException {
    db = TestEndpoints.postgres();
    rows = new DeadLetterTables(db, db.createTables("ops"));
    rows.seed(
        dead(A, "OrderPlaced", "NotFound"),
        dead(B, "OrderPlaced", "NotFound"),
        dead(C, "OrderShipped", "Throttling"));
    AwsEndpoint aws = TestEndpoints.aws();
    sqs = aws.sqs();
    prefix = "ops-" + rows.tables().prefix().replace("_", "");
    queue = sqs.createQueue(r -> r.queueName(prefix + "-orders")).queueUrl();
    String account = queue.split("/")[3];
    missingTopic = "arn:aws:sns:" + aws.region() + ":" + account + ":" + prefix + "-missing";
    envFile = dir.resolve("reprocessor.env");
    List<String> lines = new ArrayList<>();
    lines.add("# the reprocessor's settings, as an operator keeps them");
    lines.add("OUTBOX_JDBC_URL=" + db.jdbcUrl());
    lines.add("OUTBOX_DB_USER=" + db.user());
    lines.add("OUTBOX_DB_PASSWORD=" + db.password());
    lines.add("OUTBOX_TABLE_PREFIX=" + rows.tables().prefix());
    lines.add(
        "OUTBOX_REPLAY_DESTINATIONS=arn:aws:sqs:"
            + aws.region()
            + ":"
            + account
            + ":"
            + prefix
            + "-*");
    aws.environment().forEach((name, value) -> lines.add(name + "=" + value));
    lines.add("");
    Files.writeString(envFile, String.join("\n", lines));
  }

  @AfterAll
  static void dropTables() {
    if (rows != null) {
      db.dropTables(rows.tables());
    }
    if (sqs != null) {
      sqs.deleteQueue(r -> r.queueUrl(queue));
      sqs.close();
    }
  }

  private static DeadLetter dead(String id, String eventType, String errorCode) {
    return deadLetter()
        .id(UUID.fromString(id))
        .eventType(eventType)
        .error(errorCode, errorCode.equals("NotFound") ? "Topic does not exist" : "Rate exceeded")
        .build();
  }

  // ---- local mode, against the test bed

  @Test
  @Order(1)
  void list_groupsWhatDiedByErrorCodeAndEventType() throws Exception {
    Run run = local("list");
    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode report = JSON.readTree(run.out());
    assertThat(report.get("count").asInt()).isEqualTo(3);
    assertThat(report.path("summary").path("total").asLong()).isEqualTo(3);
    List<String> groups = new ArrayList<>();
    report
        .path("summary")
        .path("byErrorCodeAndEventType")
        .forEach(
            g ->
                groups.add(
                    g.path("errorCode").asText()
                        + "/"
                        + g.path("eventType").asText()
                        + "="
                        + g.path("count").asLong()));
    assertThat(groups)
        .containsExactlyInAnyOrder("NotFound/OrderPlaced=2", "Throttling/OrderShipped=1");

    Run filtered = local("list", "--error-code", "NotFound", "--limit", "1");
    JsonNode page = JSON.readTree(filtered.out());
    assertThat(page.get("count").asInt()).isEqualTo(1);
    assertThat(page.path("summary").path("total").asLong()).isEqualTo(2);
    assertThat(page.get("nextCursor").isNull()).isFalse();
  }

  @Test
  @Order(2)
  void replayByFilter_withDryRun_reportsAndChangesNothing() throws Exception {
    String before = rows.snapshot();
    Run run = local("replay", "--error-code", "NotFound", "--dry-run");
    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode report = JSON.readTree(run.out());
    assertThat(report.get("dryRun").asBoolean()).isTrue();
    assertThat(texts(report.get("wouldReplay"))).containsExactlyInAnyOrder(A, B);
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  @Order(3)
  void replayById_putsTheEventBackInTheOutbox_andAuditsWhoAskedAndWhy() throws Exception {
    Run run = local("replay", "--id", A, "--reason", "orders topic recreated");
    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode report = JSON.readTree(run.out());
    assertThat(texts(report.get("replayed"))).containsExactly(A);
    assertThat(report.get("requestedBy").asText()).isEqualTo("ops-test@example.com");
    assertThat(rows.outboxIds()).extracting(Object::toString).containsExactly(A);
    assertThat(rows.deadIds()).extracting(Object::toString).containsExactlyInAnyOrder(B, C);
    assertThat(rows.auditCount()).isEqualTo(1);
  }

  @Test
  @Order(4)
  void discard_dropsTheDeadLetter_withItsReason() throws Exception {
    Run run = local("discard", "--id", B, "--reason", "load-test order, never a customer");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(texts(JSON.readTree(run.out()).get("discarded"))).containsExactly(B);
    assertThat(rows.deadIds()).extracting(Object::toString).containsExactly(C);
    assertThat(rows.auditCount()).isEqualTo(2);
  }

  @Test
  @Order(5)
  void aRefusedRequest_exitsWithTheFieldAtFault_andChangesNothing() throws Exception {
    String before = rows.snapshot();
    Run run = local("discard", "--id", "not-an-id", "--reason", "typo");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("\"field\": \"ids[0]\"", "\"nothingChanged\": true");
    assertThat(run.out()).isEmpty();
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  @Order(6)
  void audit_showsWhoDidWhatWhenAndWhy_filteredByIdActorActionAndTime() throws Exception {
    String before = rows.snapshot();
    Run all = local("audit");
    assertThat(all.exit()).as(all.err()).isZero();
    JsonNode report = JSON.readTree(all.out());
    assertThat(report.get("count").asInt()).isEqualTo(2);
    JsonNode discard = report.get("entries").get(0);
    assertThat(discard.get("action").asText()).isEqualTo("DISCARD");
    assertThat(discard.get("deadLetterId").asText()).isEqualTo(B);
    assertThat(discard.get("requestedBy").asText()).isEqualTo("ops-test@example.com");
    assertThat(discard.get("reason").asText()).isEqualTo("load-test order, never a customer");
    assertThat(discard.path("deadLetter").path("eventType").asText()).isEqualTo("OrderPlaced");
    assertThat(discard.path("deadLetter").path("errorCode").asText()).isEqualTo("NotFound");

    JsonNode replay =
        JSON.readTree(
            local("audit", "--id", A, "--actor", "ops-test@example.com", "--action", "replay")
                .out());
    assertThat(replay.get("count").asInt()).isEqualTo(1);
    assertThat(replay.get("entries").get(0).get("reason").asText())
        .isEqualTo("orders topic recreated");
    JsonNode never = JSON.readTree(local("audit", "--to", "2000-01-01T00:00:00Z").out());
    assertThat(never.get("count").asInt()).isZero();
    JsonNode page = JSON.readTree(local("audit", "--limit", "1").out());
    JsonNode next =
        JSON.readTree(
            local("audit", "--limit", "1", "--cursor", page.get("nextCursor").asText()).out());
    assertThat(next.get("entries").get(0).get("deadLetterId").asText()).isEqualTo(A);
    assertThat(rows.snapshot()).as("the audit reads only").isEqualTo(before);

    Run refused = local("audit", "--action", "replayed");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err()).contains("\"field\": \"filter.action\"");
  }

  @Test
  @Order(7)
  void rowsWaitingForAMissingTopic_areListed_retargeted_andDeadLettered() throws Exception {
    List<UUID> waiting = new ArrayList<>();
    try (PollerRunner poller =
        new PollerRunner(
            db,
            rows.tables(),
            null,
            Map.of(
                "OUTBOX_ROUTES",
                "{\"OrderPlaced\":\"" + missingTopic + "\"}",
                "OUTBOX_PROBE_INTERVAL_MIN_MS",
                "60000"))) {
      OutboxWriter writer = OutboxWriter.builder().tables(rows.tables()).build();
      for (int i = 0; i < 3; i++) {
        OutboxEvent event =
            OutboxEvent.builder()
                .aggregateType("Order")
                .aggregateId("order-" + i)
                .eventType("OrderPlaced")
                .payload("{\"n\":" + i + "}")
                .build();
        db.jdbi().useTransaction(h -> writer.append(h, event));
        waiting.add(event.id());
      }
      // A, replayed above, goes to its own topic, of an account the test bed does not have: it
      // waits too, for that topic.
      assertThat(poller.poll().deferred()).isEqualTo(4);

      JsonNode list = JSON.readTree(local("list", "--error-code", "NotFound").out());
      Map<String, Long> byDestination = new HashMap<>();
      list.path("waiting")
          .path("destinations")
          .forEach(d -> byDestination.put(d.path("destination").asText(), d.path("rows").asLong()));
      assertThat(byDestination).containsEntry(missingTopic, 3L).hasSize(2);
      assertThat(list.path("waiting").path("rows").asLong()).isEqualTo(4);

      String before = rows.snapshot();
      Run dryRun =
          local("retarget", "--waiting-for", missingTopic, "--destination", queue, "--limit", "2");
      assertThat(dryRun.exit()).as(dryRun.err()).isZero();
      assertThat(JSON.readTree(dryRun.out()).path("wouldRetarget")).hasSize(2);
      assertThat(rows.snapshot()).isEqualTo(before);

      Run retarget =
          local(
              "retarget",
              "--waiting-for",
              missingTopic,
              "--destination",
              queue,
              "--limit",
              "2",
              "--no-dry-run",
              "--reason",
              "the orders topic is a queue now");
      assertThat(retarget.exit()).as(retarget.err()).isZero();
      List<String> moved = texts(JSON.readTree(retarget.out()).path("retargeted"));
      assertThat(moved).hasSize(2);
      assertThat(poller.poll().published()).isEqualTo(2);
      assertThat(poller.receive(queue, 2))
          .extracting(m -> PollerRunner.attribute(m, "eventId"))
          .containsExactlyInAnyOrderElementsOf(moved);

      Run deadLetter =
          local(
              "dead-letter",
              "--waiting-for",
              missingTopic,
              "--no-dry-run",
              "--reason",
              "the last one is obsolete");
      assertThat(deadLetter.exit()).as(deadLetter.err()).isZero();
      List<String> dead = texts(JSON.readTree(deadLetter.out()).path("deadLettered"));
      assertThat(dead).hasSize(1).doesNotContainAnyElementsOf(moved);
      List<String> all = new ArrayList<>(moved);
      all.addAll(dead);
      assertThat(all)
          .containsExactlyInAnyOrderElementsOf(waiting.stream().map(UUID::toString).toList());
      assertThat(rows.outboxIds()).extracting(Object::toString).containsExactly(A);
      assertThat(rows.deadIds()).extracting(Object::toString).containsAll(dead);
      JsonNode audit = JSON.readTree(local("audit", "--action", "retarget").out());
      assertThat(audit.path("count").asInt()).isEqualTo(2);
      assertThat(audit.path("entries").get(0).path("waitingFor").asText()).isEqualTo(missingTopic);
    }
  }

  @Test
  @Order(8)
  void retarget_toAQueueTheReprocessorMayNotUse_isRefusedNamingIt() throws Exception {
    String before = rows.snapshot();
    String elsewhere = queue.replace(prefix + "-orders", "billing-orders");
    Run run =
        local(
            "retarget", "--waiting-for", missingTopic, "--destination", elsewhere, "--no-dry-run");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err())
        .contains("\"field\": \"destination\"", elsewhere, "OUTBOX_REPLAY_DESTINATIONS");
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  // ---- deployed mode, through a stand-in AWS CLI

  @Test
  void stack_findsTheFunctionInTheStackOutputs_andInvokesItWithTheRequestTheParserAccepts()
      throws Exception {
    Path bin = fakeAws("{\"StatusCode\": 200, \"ExecutedVersion\": \"$LATEST\"}", "{\"count\":0}");
    Run run =
        tool(
            Map.of("OUTBOX_OPS_AWS_CLI", bin.resolve("aws").toString()),
            concat(List.of("--stack", "outbox-prod", "--region", "eu-west-1"), DRY_RUN_REPLAY));
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(JSON.readTree(run.out()).get("count").asInt()).isZero();

    List<String> calls = Files.readAllLines(bin.resolve("calls"));
    assertThat(calls.get(0))
        .contains(
            "--region eu-west-1 cloudformation describe-stacks --stack-name outbox-prod",
            "OutputKey=='DlqReprocessorFunctionName'");
    assertThat(calls.get(1))
        .startsWith(
            "--region eu-west-1 lambda invoke --function-name outbox-prod-DlqReprocessor-1A2B")
        .contains("--cli-binary-format raw-in-base64-out");
    byte[] payload = Files.readAllBytes(bin.resolve("payload"));
    ReprocessorRequest.ReplayRequest request =
        (ReprocessorRequest.ReplayRequest) RequestParser.parse(payload);
    assertThat(request.filter().errorCode()).isEqualTo("NotFound");
    assertThat(request.filter().eventType()).isEqualTo("OrderPlaced");
    assertThat(request.dryRun()).isTrue();
    assertThat(request.requestedBy()).isEqualTo("ops-test@example.com");

    Run printed = tool(Map.of(), concat(List.of("--print-request"), DRY_RUN_REPLAY));
    assertThat(JSON.readTree(printed.out())).isEqualTo(JSON.readTree(payload));
  }

  @Test
  void aFunctionError_isShownAsTheReprocessorsOwnJson_andExitsOne() throws Exception {
    String error =
        JSON.createObjectNode()
            .put("errorType", "dev.lambdaoutbox.reprocessor.InvalidRequestException")
            .put(
                "errorMessage",
                "{\"error\":\"InvalidRequest\",\"field\":\"reason\",\"nothingChanged\":true}")
            .toString();
    Path bin = fakeAws("{\"StatusCode\": 200, \"FunctionError\": \"Unhandled\"}", error);
    Run run =
        tool(
            Map.of("OUTBOX_OPS_AWS_CLI", bin.resolve("aws").toString()),
            "--function",
            "my-reprocessor",
            "list");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("\"field\": \"reason\"");
    assertThat(Files.readAllLines(bin.resolve("calls")).get(0))
        .startsWith("lambda invoke --function-name my-reprocessor");
  }

  @Test
  void printCommand_showsTheAwsCommandsWithTheRequest_withoutRunningThem() throws Exception {
    Run run =
        tool(
            Map.of(),
            "--stack",
            "outbox",
            "--print-command",
            "discard",
            "--id",
            C,
            "--reason",
            "it's \"quoted\"");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("cloudformation describe-stacks --stack-name outbox")
        .contains("lambda invoke --function-name \"$F\"")
        .contains("'{\"action\":\"discard\"");
    String payload = quotedPayload(run.out());
    ReprocessorRequest.DiscardRequest request =
        (ReprocessorRequest.DiscardRequest)
            RequestParser.parse(payload.getBytes(StandardCharsets.UTF_8));
    assertThat(request.reason()).isEqualTo("it's \"quoted\"");
    assertThat(request.ids()).extracting(Object::toString).containsExactly(C);
  }

  @Test
  void retargetAndDeadLetter_buildRequestsTheParserAccepts_dryRunUnlessTold() throws Exception {
    String from = "arn:aws:sns:eu-west-1:123456789012:orders-typo";
    String to = "arn:aws:sns:eu-west-1:123456789012:orders";
    Run retarget =
        tool(
            Map.of(),
            "--print-request",
            "retarget",
            "--waiting-for",
            from,
            "--destination",
            to,
            "--limit",
            "7",
            "--reason",
            "typo in the route");
    ReprocessorRequest.RetargetRequest r =
        (ReprocessorRequest.RetargetRequest)
            RequestParser.parse(retarget.out().getBytes(StandardCharsets.UTF_8));
    assertThat(r.waitingFor()).isEqualTo(from);
    assertThat(r.destination()).isEqualTo(to);
    assertThat(r.limit()).isEqualTo(7);
    assertThat(r.dryRun()).isTrue();
    assertThat(r.reason()).isEqualTo("typo in the route");

    Run deadLetter =
        tool(Map.of(), "--print-request", "dead-letter", "--waiting-for", from, "--no-dry-run");
    ReprocessorRequest.DeadLetterWaitingRequest d =
        (ReprocessorRequest.DeadLetterWaitingRequest)
            RequestParser.parse(deadLetter.out().getBytes(StandardCharsets.UTF_8));
    assertThat(d.waitingFor()).isEqualTo(from);
    assertThat(d.dryRun()).isFalse();
  }

  @Test
  void rewind_buildsARequestTheParserAccepts_dryRunUnlessTold() throws Exception {
    String to = "https://sqs.eu-west-1.amazonaws.com/123456789012/billing-backfill";
    List<String> args =
        List.of(
            "--print-request",
            "rewind",
            "--sent-from",
            "2026-03-01T00:00:00Z",
            "--sent-to",
            "2026-03-01T01:00:00Z",
            "--event-type",
            "OrderPlaced",
            "--destination",
            to,
            "--rate",
            "50",
            "--limit",
            "200");
    ReprocessorRequest.RewindRequest dry =
        (ReprocessorRequest.RewindRequest)
            RequestParser.parse(
                tool(Map.of(), args.toArray(String[]::new)).out().getBytes(StandardCharsets.UTF_8));
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.range().eventType()).isEqualTo("OrderPlaced");
    assertThat(dry.range().sentTo()).isEqualTo(Instant.parse("2026-03-01T01:00:00Z"));
    assertThat(dry.pacing().eventsPerSecond()).isEqualTo(50);
    assertThat(dry.limit()).isEqualTo(200);
    assertThat(dry.destination()).isEqualTo(to);

    Run real = tool(Map.of(), concat(args, List.of("--no-dry-run", "--follow")));
    ReprocessorRequest.RewindRequest r =
        (ReprocessorRequest.RewindRequest)
            RequestParser.parse(real.out().getBytes(StandardCharsets.UTF_8));
    assertThat(r.dryRun()).isFalse();
  }

  /** The rewind commands docs/operating.md tells an operator to type build valid requests. */
  @Test
  void everyRewindCommandOfTheOperatingPage_buildsARequestTheParserAccepts() throws Exception {
    String page =
        Files.readString(PackagedFunction.projectRoot().resolve("docs/operating.md"))
            .replace("\\\n", " ");
    List<String> commands =
        page.lines()
            .map(String::strip)
            .filter(l -> l.startsWith("scripts/outbox-ops ") && l.contains(" rewind "))
            .toList();
    assertThat(commands).hasSizeGreaterThanOrEqualTo(2);
    for (String command : commands) {
      List<String> args = new ArrayList<>(List.of("--print-request"));
      args.addAll(shellWords(command.substring("scripts/outbox-ops ".length())));
      Run run = tool(Map.of(), args.toArray(String[]::new));
      assertThat(run.exit()).as(command + ": " + run.err()).isZero();
      assertThat(RequestParser.parse(run.out().getBytes(StandardCharsets.UTF_8)))
          .as(command)
          .isInstanceOf(ReprocessorRequest.RewindRequest.class);
    }
  }

  /** The commands docs/waiting-rows.md tells an operator to type build requests that are valid. */
  @Test
  void everyCommandOfTheWaitingRowsPage_buildsARequestTheParserAccepts() throws Exception {
    String page =
        Files.readString(PackagedFunction.projectRoot().resolve("docs/waiting-rows.md"))
            .replace("\\\n", " ");
    List<String> commands =
        page.lines().map(String::strip).filter(l -> l.startsWith("scripts/outbox-ops ")).toList();
    assertThat(commands).hasSizeGreaterThanOrEqualTo(3);
    for (String command : commands) {
      List<String> args = new ArrayList<>(List.of("--print-request"));
      args.addAll(shellWords(command.substring("scripts/outbox-ops ".length())));
      Run run = tool(Map.of(), args.toArray(String[]::new));
      assertThat(run.exit()).as(command + ": " + run.err()).isZero();
      assertThat(RequestParser.parse(run.out().getBytes(StandardCharsets.UTF_8)))
          .as(command)
          .isNotNull();
    }
  }

  /** The words the shell makes of {@code line} (quotes as bash reads them). */
  private static List<String> shellWords(String line) throws Exception {
    Process p =
        new ProcessBuilder(
                "bash", "-c", "eval \"args=( $1 )\"; printf '%s\\0' \"${args[@]}\"", "_", line)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    List<String> words = new ArrayList<>(List.of(out.split("\0")));
    words.removeIf(String::isEmpty);
    return words;
  }

  @Test
  void withoutTheAwsCli_itSaysHowToInstallIt() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("python-only"));
    Path python = Path.of(python3());
    Files.deleteIfExists(bin.resolve("python3"));
    Files.createSymbolicLink(bin.resolve("python3"), python);
    Run run = tool(Map.of("PATH", bin.toString()), "--stack", "outbox", "list");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("pip install awscli");
  }

  // ---- running the tool

  private record Run(int exit, String out, String err) {}

  private static Run local(String... args) throws Exception {
    return tool(
        Map.of(), concat(List.of("--local", "--env-file", envFile.toString()), List.of(args)));
  }

  private static String[] concat(List<String> first, List<String> then) {
    List<String> all = new ArrayList<>(first);
    all.addAll(then);
    return all.toArray(String[]::new);
  }

  private static Run tool(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(TOOL.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    // The build that runs this test has made the jars and the class path: no Maven run inside
    // it, and the env file, not the test bed's defaults, says where the tables are.
    builder.environment().put("RUN_MAIN_BUILD", "off");
    builder.environment().put("OUTBOX_TESTBED", "off");
    builder.environment().put("OUTBOX_OPS_REQUESTED_BY", "ops-test@example.com");
    builder.environment().putAll(env);
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("outbox-ops did not finish: " + Files.readString(err));
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  /**
   * A stand-in for the AWS CLI: it appends each call's arguments to {@code calls}, answers
   * describe-stacks with a function name, and answers lambda invoke as the CLI does (status JSON on
   * standard output, the function's answer in the output file), keeping the payload it got.
   */
  private static Path fakeAws(String status, String body) throws IOException {
    Path bin = Files.createTempDirectory(dir, "bin");
    Files.writeString(bin.resolve("status.json"), status);
    Files.writeString(bin.resolve("body.json"), body);
    Path aws = bin.resolve("aws");
    Files.writeString(
        aws,
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "here=$(dirname \"$0\")",
            "echo \"$*\" >> \"$here/calls\"",
            "args=(\"$@\")",
            "for ((i = 0; i < ${#args[@]}; i++)); do",
            "  if [[ ${args[i]} == --payload ]]; then printf '%s' \"${args[i+1]}\" >"
                + " \"$here/payload\"; fi",
            "done",
            "case \" $* \" in",
            "  *' describe-stacks '*) echo outbox-prod-DlqReprocessor-1A2B ;;",
            "  *' invoke '*) cp \"$here/body.json\" \"${args[-1]}\"; cat \"$here/status.json\" ;;",
            "  *) echo \"unexpected: $*\" >&2; exit 255 ;;",
            "esac",
            ""));
    Files.setPosixFilePermissions(aws, PosixFilePermissions.fromString("rwxr-xr-x"));
    return bin;
  }

  /** The single-quoted --payload of a printed command, unquoted as the shell would. */
  private static String quotedPayload(String commands) throws Exception {
    String invoke =
        commands
            .lines()
            .filter(l -> l.contains("lambda invoke"))
            .findFirst()
            .orElseThrow()
            .replace(" && cat out.json", "");
    ProcessBuilder shell =
        new ProcessBuilder(
            "bash",
            "-c",
            "eval \"args=( $1 )\"; for ((i = 0; i < ${#args[@]}; i++)); do"
                + " if [[ ${args[i]} == --payload ]]; then printf '%s' \"${args[i+1]}\"; fi; done",
            "_",
            invoke);
    Process p = shell.start();
    String payload = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return payload;
  }

  private static String python3() throws Exception {
    Process p = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").start();
    String path = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    p.waitFor();
    return path;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(n -> texts.add(n.isTextual() ? n.asText() : n.path("id").asText()));
    return texts;
  }
}
