package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages.InlineCode;
import dev.lambdaoutbox.docs.DocPages.Page;
import dev.lambdaoutbox.template.TemplateFacts;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every name the pages write in backticks exists where they say: a word of the code, the template,
 * the scripts or the schema. Stricter where the kind of name is plain: an {@code OUTBOX_…} variable
 * is one the functions or the tools read; a {@code NAME=value} is a value the template or the
 * configuration parser accepts; a name ending in {@code Alarm} is an alarm of the template; an
 * {@code outbox_…} or {@code inbox_…} name is a table of {@code OutboxTables} and another
 * snake_case name a word of the migrations; a path or script exists; a make target is the
 * Makefile's. A prose count of alarms is the template's, and no page sends the reader to a log
 * group the functions do not write to.
 */
class DocNamesTest {
  /**
   * Names from outside the project that the pages write in backticks, and whose they are. Nothing
   * of the project's own belongs here.
   */
  static final Map<String, String> OUTSIDE =
      Map.ofEntries(
          Map.entry("SecondsUntilAutoPause", "an Aurora Serverless v2 cluster setting"),
          Map.entry("sqlFile", "a Liquibase change type"),
          Map.entry("transaction_isolation", "a MySQL system variable"),
          Map.entry("max_allowed_packet", "a MySQL and MariaDB system variable"),
          Map.entry("fillfactor", "a PostgreSQL storage parameter"),
          Map.entry("DELIMITER", "a MySQL client command"),
          Map.entry("reWriteBatchedInserts", "a pgjdbc connection property"),
          Map.entry("StringConcatFactory", "a JDK class"),
          Map.entry("Filter", "a line of PostgreSQL's EXPLAIN output"),
          Map.entry("cacerts", "the JDK's trust store file"),
          Map.entry("MAVEN_GPG_PASSPHRASE", "the variable maven-gpg-plugin reads"),
          Map.entry("eventName", "a field of a CloudTrail record"),
          Map.entry("EventBusName", "a field of an EventBridge PutEvents entry"),
          Map.entry(
              "cleanupS3Payload", "a setting of AWS's SQS Extended Client Library's configuration"),
          Map.entry("userIdentity", "a field of a CloudTrail record"),
          Map.entry("principalId", "a field of a CloudTrail record"),
          Map.entry("sessionContext", "a field of a CloudTrail record"),
          Map.entry("requestContext", "a field of a Lambda asynchronous invocation record"),
          Map.entry("requestPayload", "a field of a Lambda asynchronous invocation record"),
          Map.entry("responsePayload", "a field of a Lambda asynchronous invocation record"),
          Map.entry("RetriesExhausted", "a condition of a Lambda asynchronous invocation record"),
          Map.entry("EventAgeExceeded", "a condition of a Lambda asynchronous invocation record"));

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern ASSIGNMENT = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\\S*)");
  private static final Pattern SNAKE = Pattern.compile("[a-z][a-z0-9]*(_[a-z0-9]+)+");
  private static final Pattern NUMBER_WORD =
      Pattern.compile(
          "\\b(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) alarms\\b",
          Pattern.CASE_INSENSITIVE);
  private static final List<String> NUMBERS =
      List.of(
          "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve");

  private final Set<String> codeWords = CodeFacts.codeWords();
  private final Set<String> schemaWords = CodeFacts.schemaWords();
  private final Set<String> tables = CodeFacts.tables();
  private final Set<String> functionVariables = CodeFacts.functionVariables();
  private final Set<String> alarms = TemplateFacts.allAlarms();

  @Test
  void everyBacktickedName_existsWhereThePagesSay() throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Page page : DocPages.all()) {
      for (InlineCode code : page.inlineCode()) {
        String problem = check(code.text());
        if (problem != null) {
          problems.add(code.where() + " `" + code.text() + "`: " + problem);
        }
        checked++;
      }
    }
    assertThat(problems).isEmpty();
    assertThat(checked).as("backticked names checked").isGreaterThan(500);
  }

  @Test
  void namesThatDoNotExist_areFound() throws IOException {
    assertThat(check("PublishConcurrency")).as("a parameter the template lacks").isNotNull();
    assertThat(check("consecutive_failures")).as("a column the schema lacks").isNotNull();
    assertThat(check("OUTBOX_PUBLISH_CONCURENCY")).as("a variable nobody reads").isNotNull();
    assertThat(check("PollerThrottlesAlarm")).as("an alarm the template lacks").isNotNull();
    assertThat(check("Ordering=sorted")).as("a value the template refuses").isNotNull();
    assertThat(check("OUTBOX_BATCH_SIZE=5000")).as("a value the parser refuses").isNotNull();
    assertThat(check("events/lists.json")).as("a file that is not there").isNotNull();
  }

  @Test
  void aProseCountOfAlarms_isTheTemplates() {
    int alarmCount = TemplateFacts.alarms().size();
    List<String> wrong = new ArrayList<>();
    for (Page page : DocPages.all()) {
      Matcher m = NUMBER_WORD.matcher(page.prose());
      while (m.find()) {
        String n = m.group(1).toLowerCase();
        int said = n.matches("\\d+") ? Integer.parseInt(n) : NUMBERS.indexOf(n);
        if (said != alarmCount) {
          wrong.add(page.name() + ": \"" + m.group() + "\"; the stack has " + alarmCount);
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void noPage_sendsTheReaderToALogGroupTheFunctionsDoNotWriteTo() {
    for (String function : TemplateFacts.functions()) {
      assertThat(String.valueOf(TemplateFacts.functionProperty(function, "LoggingConfig")))
          .as("%s logs to a log group of the stack", function)
          .contains("LogGroup");
    }
    for (Page page : DocPages.all()) {
      assertThat(page.text())
          .as("%s: the functions log to the stack's log groups, not Lambda's default", page)
          .doesNotContain("/aws/lambda/");
    }
  }

  /** Null when {@code code} names something that exists, else what is wrong. */
  String check(String code) throws IOException {
    if (IDENTIFIER.matcher(code).matches()) {
      return identifier(code);
    }
    Matcher assignment = ASSIGNMENT.matcher(code);
    if (assignment.matches()) {
      return assignment(assignment.group(1), assignment.group(2));
    }
    String first = code.split("\\s+")[0];
    if (code.startsWith("make ")) {
      String target = code.split("\\s+")[1];
      return Files.readString(DocPages.ROOT.resolve("Makefile")).contains("\n" + target + ":")
          ? null
          : "the Makefile has no target " + target;
    }
    if (first.matches("[a-z-]+/target/.*")
        && Files.isRegularFile(DocPages.ROOT.resolve(first.split("/")[0]).resolve("pom.xml"))) {
      return null; // what a module's build writes
    }
    if (isRepositoryPath(first)) {
      return pathExists(first) ? null : "no such file in the repository";
    }
    return null; // prose in code font, an expression, a command line: not a name
  }

  private String identifier(String name) {
    if (name.startsWith("OUTBOX_")) {
      return functionVariables.contains(name) || codeWords.contains(name)
          ? null
          : "no function or tool reads this variable";
    }
    if (name.matches("[A-Z][A-Za-z0-9]*Alarm")) {
      return alarms.contains(name) ? null : "template.yaml has no such alarm: " + alarms;
    }
    if (name.matches("(outbox|inbox)_[a-z_]+")) {
      return tables.contains(name) ? null : "OutboxTables names no such table: " + tables;
    }
    if (SNAKE.matcher(name).matches()) {
      return schemaWords.contains(name) || codeWords.contains(name) || OUTSIDE.containsKey(name)
          ? null
          : "neither a column nor a name of the code";
    }
    return codeWords.contains(name) || OUTSIDE.containsKey(name)
        ? null
        : "the code, template and scripts never name it (a name from elsewhere goes in"
            + " DocNamesTest.OUTSIDE)";
  }

  private String assignment(String name, String value) {
    if (TemplateFacts.parameters().contains(name)) {
      String refusal = TemplateFacts.refusal(name, value);
      return refusal == null ? null : "template.yaml refuses it: " + refusal;
    }
    if (functionVariables.contains(name)) {
      return ConfigParsers.accepts(name, value) ? null : "the functions refuse it at start-up";
    }
    return identifier(name);
  }

  private static boolean isRepositoryPath(String word) {
    if (!word.contains("/") && !word.matches(".*\\.(md|json|yaml|java|sh|sql|xml)$")) {
      return word.equals("Makefile") || word.equals("template.yaml");
    }
    String top = word.split("/")[0];
    return Files.exists(DocPages.ROOT.resolve(top)) && !top.isEmpty() && !top.startsWith("~");
  }

  /** Whether the path exists; {@code *} and {@code ...} (any folders) allowed. */
  private static boolean pathExists(String path) throws IOException {
    String trimmed = path.replaceAll("[),.:;]+$", "");
    if (!trimmed.contains("*") && !trimmed.contains("...")) {
      return Files.exists(DocPages.ROOT.resolve(trimmed))
          || Files.exists(DocPages.ROOT.resolve(trimmed + ".java"));
    }
    String glob = trimmed.replace("...", "**");
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob + "{,.java}");
    try (Stream<Path> files = Files.walk(DocPages.ROOT)) {
      return files
          .map(DocPages.ROOT::relativize)
          .filter(p -> !p.toString().startsWith(".git"))
          .anyMatch(matcher::matches);
    }
  }
}
