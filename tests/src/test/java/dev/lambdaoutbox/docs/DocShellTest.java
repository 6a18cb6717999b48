package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.template.TemplateFacts;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command of the pages' {@code bash} and {@code sh} blocks, in page order.
 *
 * <p>Run here, as written but for where they run: {@code scripts/outbox-ops} (whatever {@code
 * --stack}, {@code --function} or env file it names, it runs {@code --local} against tables of this
 * test's own holding dead letters and a parked aggregate, {@code $S} expanded and {@code
 * <deadLetterId>} the parked head's id), {@code scripts/run-main
 * dev.lambdaoutbox.local.InvokeFunction} (on the same tables), {@code eval "$(scripts/local-aws
 * env)"} and the read-only {@code scripts/local-aws} commands. Each must exit 0, the operator tool
 * with a JSON report.
 *
 * <p>Not run here, each for a stated reason, and checked for the names it uses: {@link #NOT_RUN}. A
 * command of no kind fails the test, so a new kind of command gets a check before it ships.
 */
class DocShellTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String INVOKE_FUNCTION = "dev.lambdaoutbox.local.InvokeFunction";
  private static final Set<String> AWS_OPERATIONS =
      Set.of(
          "cloudformation describe-stacks",
          "cloudformation describe-stack-resource",
          "cloudformation execute-change-set",
          "cloudtrail put-event-selectors",
          "lambda delete-function",
          "lambda get-function-configuration",
          "lambda invoke",
          "lambda list-versions-by-function",
          "lambda publish-layer-version",
          "logs tail",
          "secretsmanager create-secret",
          "sqs receive-message",
          "serverlessrepo create-cloud-formation-change-set");

  /** Every topic of the example account the pages name. */
  private static final String EXAMPLE_TOPICS = "arn:aws:sns:*:123456789012:*";

  /** The programs whose commands are not run here, and why. */
  static final Map<String, String> NOT_RUN =
      Map.of(
          "aws",
              "needs an AWS account: the service, operation, files, outputs and resources checked",
          "scripts/sam",
              "deploy needs an AWS account (its parameter overrides checked); build and"
                  + " validate run in make test",
          "make",
              "runs the whole build or the demo (make test runs both; .ci/run runs make test):"
                  + " the target checked",
          "./mvnw",
              "the build itself; install runs in LibraryAsDependencyTest: modules and classes"
                  + " checked",
          "scripts/run-main",
              "benchmarks and the demo run for minutes: the class and its -Dbench"
                  + " options checked (InvokeFunction runs here)",
          "scripts/local-aws",
              "up, down and serve change the shared test bed: the command checked"
                  + " (env and status run here)",
          "curl",
              "downloads from AWS's trust store, which this machine cannot reach: the host"
                  + " checked",
          "zip",
              "packs what the curl before it downloaded: the archive checked to be the one the"
                  + " next command uploads",
          "scripts/checkov",
              "TemplateCheckovTest runs it on every template the project ships: the files"
                  + " checked to exist, and scanned as CloudFormation");

  @TempDir static Path dir;

  private static TestDatabase db;
  private static OutboxTables tables;
  private static Path envFile;
  private static UUID parkedHead;

  @BeforeAll
  static void deadLettersAndAParkedAggregate() throws Exception {
    db = TestEndpoints.postgres();
    tables = db.createTables("docsh");
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<OutboxEvent> dying = new ArrayList<>();
    dying.add(event("order", "o-1001", "OrderPlaced", "0195a3c4-8f21-7b9e-a4d2-3c51e0f7b812"));
    dying.add(event("order", "o-1002", "OrderPlaced", "0195a3c4-b3e9-7d41-8f0a-5e26c71d9b04"));
    for (int i = 0; i < 3; i++) {
      dying.add(event("reservation", "r-" + i, "reservation.upgraded", null));
    }
    db.jdbi().useTransaction(h -> writer.appendAll(h, dying));
    try (JdbcConnectionProvider connections = Stores.connections(db, tables)) {
      OutboxStore unordered =
          OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
      Instant now = Instant.now();
      List<DeliveryOutcome> outcomes = new ArrayList<>();
      for (OutboxMessage m : unordered.claim("docs", 100, now, Duration.ofMinutes(1)).messages()) {
        outcomes.add(new DeliveryOutcome.DeadLetter(m.id(), "NO_DESTINATION", "no route"));
      }
      assertThat(outcomes).hasSize(dying.size());
      unordered.complete("docs", outcomes, now);

      OutboxEvent head = event("order", "o-42", "OrderPlaced", null);
      OutboxEvent behind = event("order", "o-42", "OrderShipped", null);
      db.jdbi().useTransaction(h -> writer.append(h, head));
      db.jdbi().useTransaction(h -> writer.append(h, behind));
      OutboxStore ordered =
          OutboxStore.builder(JdbcExecutor.of(connections))
              .tables(tables)
              .ordering(dev.lambdaoutbox.store.model.Ordering.AGGREGATE)
              .build();
      Instant later = Instant.now().plusSeconds(1); // the rows just written are due by then
      assertThat(ordered.claim("docs", 10, later, Duration.ofMinutes(1)).messages())
          .extracting(OutboxMessage::id)
          .containsExactly(head.id());
      ordered.complete(
          "docs",
          List.of(new DeliveryOutcome.DeadLetter(head.id(), "InvalidParameterValue", "refused")),
          later);
      parkedHead = head.id();
    }
    envFile = dir.resolve("functions.env");
    Files.writeString(
        envFile,
        String.join(
            "\n",
            "OUTBOX_JDBC_URL=" + db.jdbcUrl(),
            "OUTBOX_DB_USER=" + db.user(),
            "OUTBOX_DB_PASSWORD=" + db.password(),
            "OUTBOX_TABLE_PREFIX=" + tables.prefix(),
            // The pages' destinations are topics of an example account: allowed, but absent here.
            "OUTBOX_REPLAY_DESTINATIONS=" + EXAMPLE_TOPICS,
            // The region of the pages' examples; the test bed's endpoint serves every region.
            "AWS_REGION=eu-west-1",
            ""));
  }

  @AfterAll
  static void dropTables() {
    if (tables != null) {
      db.dropTables(tables);
    }
  }

  private static OutboxEvent event(String type, String id, String eventType, String eventId) {
    OutboxEvent.Builder b =
        OutboxEvent.builder()
            .aggregateType(type)
            .aggregateId(id)
            .eventType(eventType)
            .payload("{\"id\":\"" + id + "\"}");
    return (eventId == null ? b : b.id(UUID.fromString(eventId))).build();
  }

  @Test
  void everyShellCommand_runs_orIsCheckedForWhatItNames() throws Exception {
    List<CodeBlock> blocks =
        DocPages.blocks("bash", "sh").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    assertThat(blocks).as("the pages' shell blocks").hasSizeGreaterThan(5);
    List<String> problems = new ArrayList<>();
    Set<String> programs = new java.util.TreeSet<>();
    int ran = 0;
    for (CodeBlock block : blocks) {
      List<ShellCommand> commands = ShellCommand.of(block);
      if (commands.isEmpty()) {
        problems.add(block + ": an empty block");
      }
      Map<String, String> variables = new HashMap<>();
      for (ShellCommand command : commands) {
        String problem = handle(command, variables);
        System.out.println(
            (RAN.equals(problem) ? "ran      " : problem == null ? "checked  " : "PROBLEM  ")
                + command.where()
                + (problem == null && NOT_RUN.containsKey(command.program())
                    ? "\n           not run: " + NOT_RUN.get(command.program())
                    : ""));
        programs.add(command.program());
        if (RAN.equals(problem)) {
          ran++;
        } else if (problem != null) {
          problems.add(command.where() + "\n    " + problem);
        }
      }
    }
    assertThat(problems).isEmpty();
    assertThat(ran).as("commands run").isGreaterThan(10);
    assertThat(NOT_RUN).as("the list of commands not run here stays short").hasSizeLessThan(10);
    assertThat(programs)
        .as("every program on the list of those not run here is one the pages use")
        .containsAll(NOT_RUN.keySet());
  }

  @Test
  void aCommandNoCheckKnows_fails() {
    CodeBlock block =
        new CodeBlock(null, 0, "bash", "wget https://example.com\n", java.util.Optional.empty());
    assertThat(handle(ShellCommand.of(block).get(0), new HashMap<>()))
        .as("the test can fail")
        .contains("no check knows");
  }

  @Test
  void aStackOutputThatDoesNotExist_fails() {
    CodeBlock block =
        new CodeBlock(
            null,
            0,
            "bash",
            "aws cloudformation describe-stacks --stack-name outbox"
                + " --query \"Stacks[0].Outputs[?OutputKey=='PollerLogGroupName'].OutputValue\"\n",
            java.util.Optional.empty());
    assertThat(handle(ShellCommand.of(block).get(0), new HashMap<>()))
        .as("the test can fail")
        .contains("PollerLogGroupName");
  }

  private static final String RAN = "ran";

  /** RAN when the command was run and succeeded; null when checked; else what is wrong. */
  private static String handle(ShellCommand command, Map<String, String> variables) {
    for (Map.Entry<String, String> a : command.assignments().entrySet()) {
      Matcher inner = Pattern.compile("\\$\\((.*)\\)").matcher(a.getValue());
      if (inner.find()) {
        String problem = nested(command, inner.group(1), variables);
        if (problem != null) {
          return problem;
        }
      }
      variables.put(a.getKey(), a.getValue());
    }
    if (command.program().isEmpty()) {
      return null; // assignments only
    }
    try {
      List<List<String>> parts = split(command.words());
      String result = null;
      for (List<String> part : parts) {
        ShellCommand one =
            new ShellCommand(command.block(), String.join(" ", part), command.assignments(), part);
        result = one(one, command.text(), variables);
        if (result != null && !RAN.equals(result)) {
          return result;
        }
      }
      return result;
    } catch (Exception e) {
      return e.toString();
    }
  }

  private static String nested(ShellCommand outer, String text, Map<String, String> variables) {
    List<String> words = ShellCommand.words(text);
    if (words.isEmpty()) {
      return "an empty $( )";
    }
    ShellCommand inner = new ShellCommand(outer.block(), text, Map.of(), words);
    if (words.get(0).equals("scripts/lambda-java21")) {
      return Files.isExecutable(DocPages.ROOT.resolve(words.get(0))) ? null : "no such script";
    }
    String result = handle(inner, variables);
    return RAN.equals(result) ? null : result;
  }

  /** The commands of a line joined by {@code &&}. */
  private static List<List<String>> split(List<String> words) {
    List<List<String>> parts = new ArrayList<>();
    List<String> part = new ArrayList<>();
    for (String w : words) {
      if (w.equals("&&")) {
        parts.add(part);
        part = new ArrayList<>();
      } else {
        part.add(w);
      }
    }
    parts.add(part);
    return parts;
  }

  private static String one(ShellCommand c, String line, Map<String, String> variables)
      throws Exception {
    List<String> w = c.words();
    return switch (c.program()) {
      case "eval" -> run(line, Map.of(), false);
      case "scripts/outbox-ops" -> outboxOps(c, variables);
      case "scripts/local-aws" -> localAws(c, line);
      case "scripts/run-main" -> runMain(c, line);
      case "./mvnw" -> maven(c);
      case "make" -> make(c);
      case "scripts/sam" -> sam(c);
      case "scripts/checkov" -> checkov(c);
      case "aws" -> aws(c);
      case "cat" -> w.size() == 2 && w.get(1).equals("out.json") ? null : "cat what?";
      case "curl" ->
          line.contains("https://truststore.pki.rds.amazonaws.com/")
              ? null
              : "curl downloads only the RDS CA bundle from AWS's trust store";
      case "zip" ->
          w.size() >= 3 && w.get(1).equals("-r") && w.get(2).endsWith(".zip")
              ? null
              : "zip -r ARCHIVE.zip FOLDER";
      default -> "no check knows the command " + c.program() + "; add one to DocShellTest";
    };
  }

  // ---- run here

  private static String outboxOps(ShellCommand c, Map<String, String> variables) throws Exception {
    String text = c.text();
    for (Map.Entry<String, String> v : variables.entrySet()) {
      text = text.replace("$" + v.getKey() + " ", v.getValue() + " ");
    }
    text = text.replace("<deadLetterId>", parkedHead.toString());
    List<String> words = ShellCommand.words(text);
    String code = valueAfter(words, "--error-code");
    if (code != null && !DeadLetterCodes.recordedByThePoller(code)) {
      return "--error-code " + code + ": the poller never dead-letters with it";
    }
    if (words.size() > 1 && words.get(1).equals("grants")) {
      return run(text, Map.of(), false); // needs no function and no AWS: run exactly as written
    }
    List<String> local = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word.equals("--stack") || word.equals("--function") || word.equals("--env-file")) {
        i++;
      } else if (!word.equals("--local")) {
        local.add(word);
      }
      if (i == 0) {
        local.add("--local");
        local.add("--env-file");
        local.add(envFile.toString());
      }
    }
    String problem = run(String.join(" ", local), Map.of(), true);
    boolean exampleTopicMissing =
        problem != null
            && problem.contains("\"field\": \"destination\"")
            && problem.contains(":123456789012:")
            && problem.contains("does not exist");
    // The request was parsed and its destination allowed; only the example account's topic is not
    // here to be found (DestinationOverrideContract checks against real topics and queues).
    return exampleTopicMissing ? null : problem;
  }

  private static String localAws(ShellCommand c, String line) throws Exception {
    String sub = c.words().size() > 1 ? c.words().get(1) : "";
    if (sub.contains("|")) {
      for (String s : sub.split("\\|")) {
        if (!localAwsCommands().contains(s)) {
          return "scripts/local-aws has no command " + s;
        }
      }
      return null;
    }
    if (!localAwsCommands().contains(sub)) {
      return "scripts/local-aws has no command " + sub;
    }
    return sub.equals("env") || sub.equals("status") ? run(line, Map.of(), false) : null;
  }

  private static String runMain(ShellCommand c, String line) throws Exception {
    List<String> w = c.words();
    String mainClass = w.get(1);
    Path source =
        DocPages.ROOT.resolve("tests/src/main/java/" + mainClass.replace('.', '/') + ".java");
    if (!Files.exists(source)) {
      return "no main class " + mainClass + " in tests/src/main";
    }
    String javaOpts = c.assignments().getOrDefault("JAVA_OPTS", "");
    Matcher bench = Pattern.compile("-Dbench\\.([A-Za-z]+)").matcher(javaOpts);
    String sources = mainSources();
    while (bench.find()) {
      if (!sources.contains("\"bench." + bench.group(1) + "\"")) {
        return "no harness reads -Dbench." + bench.group(1);
      }
    }
    if (!mainClass.equals(INVOKE_FUNCTION)) {
      return null;
    }
    List<String> words = new ArrayList<>();
    for (int i = 0; i < w.size(); i++) {
      if (w.get(i).equals("--env-file")) {
        i++;
      } else {
        words.add(w.get(i));
      }
    }
    words.add("--env-file");
    words.add(envFile.toString());
    return run(String.join(" ", words), Map.of(), false);
  }

  /** Runs {@code command} with bash in the project root; RAN when it exits 0. */
  private static String run(String command, Map<String, String> env, boolean json)
      throws Exception {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder("bash", "-c", command)
            .directory(DocPages.ROOT.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    // The build that runs this test has made the jars and the class path, and the env file says
    // where the tables are.
    builder.environment().put("RUN_MAIN_BUILD", "off");
    builder.environment().put("OUTBOX_TESTBED", "off");
    builder.environment().put("OUTBOX_OPS_REQUESTED_BY", "docs-test@example.com");
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      return "did not finish in 3 minutes: " + Files.readString(err);
    }
    if (process.exitValue() != 0) {
      return "exit "
          + process.exitValue()
          + ": "
          + command
          + "\n"
          + Files.readString(err)
          + Files.readString(out);
    }
    if (json) {
      try {
        JSON.readTree(Files.readString(out));
      } catch (IOException e) {
        return "not a JSON report: " + Files.readString(out);
      }
    }
    return RAN;
  }

  // ---- checked, not run

  private static String maven(ShellCommand c) {
    String modules = c.value("-pl");
    if (modules != null) {
      for (String module : modules.split(",")) {
        if (!Files.exists(DocPages.ROOT.resolve(module).resolve("pom.xml"))) {
          return "no module " + module;
        }
      }
    }
    for (String word : c.words()) {
      if (word.startsWith("-Dexec.mainClass=")) {
        String mainClass = word.substring(word.indexOf('=') + 1);
        if (!Files.exists(
            DocPages.ROOT.resolve(
                "tests/src/main/java/" + mainClass.replace('.', '/') + ".java"))) {
          return "no main class " + mainClass;
        }
      }
    }
    if (c.words().contains("install")
        && !(modules != null && c.words().contains("-am") && c.words().size() == 5)) {
      return "LibraryAsDependencyTest runs ./mvnw install -pl MODULES -am commands only";
    }
    return null;
  }

  private static String make(ShellCommand c) throws IOException {
    String target = c.words().size() > 1 ? c.words().get(1) : "";
    if (!Files.readString(DocPages.ROOT.resolve("Makefile")).contains("\n" + target + ":")) {
      return "the Makefile has no target " + target;
    }
    if (target.equals("test")
        && !Files.readString(DocPages.ROOT.resolve(".ci/run")).contains("make test")) {
      return ".ci/run does not run make test";
    }
    return null;
  }

  private static String sam(ShellCommand c) throws IOException {
    String sub = c.words().size() > 1 ? c.words().get(1) : "";
    switch (sub) {
      case "build", "validate" -> {
        return Files.readString(DocPages.ROOT.resolve("Makefile")).contains("scripts/sam " + sub)
            ? null
            : "make test does not run sam " + sub;
      }
      case "deploy" -> {
        for (String pair : c.after("--parameter-overrides")) {
          int eq = pair.indexOf('=');
          if (eq < 0) {
            return "not NAME=value: " + pair;
          }
          String name = pair.substring(0, eq);
          if (!TemplateFacts.parameters().contains(name)) {
            return "template.yaml has no parameter " + name;
          }
          String refusal = TemplateFacts.refusal(name, pair.substring(eq + 1));
          if (refusal != null) {
            return name + ": " + refusal;
          }
        }
        return null;
      }
      default -> {
        return "no check knows sam " + sub;
      }
    }
  }

  private static String checkov(ShellCommand c) {
    if (!"cloudformation".equals(c.value("--framework"))) {
      return "not scanned as CloudFormation (--framework cloudformation)";
    }
    List<String> files = c.after("-f");
    if (files.isEmpty()) {
      return "no file to scan (-f)";
    }
    for (String file : files) {
      if (!Files.exists(DocPages.ROOT.resolve(file))) {
        return "no such file " + file;
      }
    }
    return null;
  }

  private static String aws(ShellCommand c) {
    List<String> w = c.words();
    if (w.size() < 3 || !AWS_OPERATIONS.contains(w.get(1) + " " + w.get(2))) {
      return "an AWS CLI operation no check knows; add it to DocShellTest.AWS_OPERATIONS";
    }
    String payload = c.value("--payload");
    if (payload != null
        && payload.startsWith("file://")
        && !Files.exists(DocPages.ROOT.resolve(payload.substring("file://".length())))) {
      return "no such file " + payload;
    }
    Matcher output = Pattern.compile("OutputKey=='([A-Za-z0-9]+)'").matcher(c.text());
    while (output.find()) {
      if (!TemplateFacts.outputs().contains(output.group(1))) {
        return "the stack has no output " + output.group(1);
      }
    }
    for (String override : c.after("--parameter-overrides")) {
      Matcher name = Pattern.compile("^Name=([A-Za-z0-9]+),Value=").matcher(override);
      if (!name.find() || !TemplateFacts.parameters().contains(name.group(1))) {
        return "not a parameter of the template: " + override;
      }
    }
    String resource = c.value("--logical-resource-id");
    if (resource != null && !TemplateFacts.resourceTypes().containsKey(resource)) {
      return "the stack has no resource " + resource;
    }
    if (w.get(1).equals("logs") && w.size() > 3 && w.get(3).contains("/aws/lambda/")) {
      return "the functions log to the stack's own log groups, not /aws/lambda/...";
    }
    return null;
  }

  // ---- helpers

  private static String valueAfter(List<String> words, String flag) {
    int at = words.indexOf(flag);
    return at >= 0 && at + 1 < words.size() ? ShellCommand.unquote(words.get(at + 1)) : null;
  }

  private static Set<String> localAwsCommands() throws IOException {
    Set<String> commands = new java.util.TreeSet<>();
    Matcher m =
        Pattern.compile("(?m)^\\s{4}([a-z-]+)\\)")
            .matcher(Files.readString(DocPages.ROOT.resolve("scripts/local-aws")));
    while (m.find()) {
      commands.add(m.group(1));
    }
    return commands;
  }

  private static String mainSources() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(DocPages.ROOT.resolve("tests/src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        all.append(Files.readString(f));
      }
    }
    return all.toString();
  }
}
