package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * checkov, the scanner the field runs on CloudFormation and SAM templates ({@code scripts/checkov},
 * the pinned copy), on every template the project ships: template.yaml, and any under examples/. A
 * finding fails the build unless it is fixed, or skipped beside its resource ({@code Metadata:
 * checkov: skip:} with the check's id and a comment saying why), where a reader of the template
 * sees the reason.
 *
 * <p>checkov leaves out a resource whose condition is false on the parameters' defaults, so each
 * template is scanned twice: as written, as a user's scan sees it, and with every condition true,
 * so that a resource behind an option (the trail, the alarm topic's key) is scanned too. Each skip
 * must hide a finding there would be without it; and a copy of template.yaml without its fixes must
 * fail, naming each check and resource. One run of checkov scans all of these (10 to 20 s on two
 * cores; the first run installs checkov, a minute or two).
 */
class TemplateCheckovTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path ROOT = PackagedFunction.projectRoot();
  private static final Path CHECKOV = ROOT.resolve("scripts/checkov");

  /** A template and the file of each of its views. */
  private record Shipped(
      String name, SamTemplate template, Path asWritten, Path allOn, Path unskipped) {}

  /** A finding of checkov: the check, the resource (its logical id) and the check's title. */
  private record Finding(String check, String resource, String title) {
    @Override
    public String toString() {
      return check + " on " + resource + " (" + title + ")";
    }
  }

  /** What checkov said of one file. */
  private record Scanned(List<Finding> failed, List<Finding> skipped, Set<String> resources) {}

  /** A fix of template.yaml, as its text, and what checkov finds without it. */
  private record Fix(Finding without, String text, String replacement) {}

  /** Fixes of findings checkov made on template.yaml, one of each kind. */
  private static final List<Fix> FIXES =
      List.of(
          new Fix(
              new Finding("CKV_AWS_26", "AlarmTopic", "the alarm topic unencrypted"),
              "      KmsMasterKeyId: !If [EncryptsAlarmTopic, !Ref AlarmTopicKey, !Ref"
                  + " AWS::NoValue]\n",
              ""),
          new Fix(
              new Finding("CKV_AWS_158", "PollerLogGroup", "a log group without the stack's key"),
              "      RetentionInDays: 30\n"
                  + "      KmsKeyId: !If [HasStackKmsKey, !Ref StackKmsKeyArn, !Ref AWS::NoValue]\n"
                  + "\n  DlqReprocessorLogGroup:",
              "      RetentionInDays: 30\n\n  DlqReprocessorLogGroup:"),
          new Fix(
              new Finding("CKV_AWS_173", "PollerFunction", "environment variables without the key"),
              "    KmsKeyArn: !If [HasStackKmsKey, !Ref StackKmsKeyArn, !Ref AWS::NoValue]\n",
              ""),
          new Fix(
              new Finding("CKV_AWS_21", "ClaimCheckPayloadBucket", "the claim check unversioned"),
              "      VersioningConfiguration:\n"
                  + "        Status: Enabled\n"
                  + "      LoggingConfiguration: !If\n"
                  + "        - HasAccessLogBucket\n"
                  + "        - DestinationBucketName: !Ref AccessLogBucket\n"
                  + "          LogFilePrefix: !Sub \"${AWS::StackName}/claim-check/\"\n",
              "      LoggingConfiguration: !If\n"
                  + "        - HasAccessLogBucket\n"
                  + "        - DestinationBucketName: !Ref AccessLogBucket\n"
                  + "          LogFilePrefix: !Sub \"${AWS::StackName}/claim-check/\"\n"),
          new Fix(
              new Finding(
                  "CKV_AWS_18", "ReprocessorTrailBucket", "the trail's bucket without logs"),
              "      LoggingConfiguration: !If\n"
                  + "        - HasAccessLogBucket\n"
                  + "        - DestinationBucketName: !Ref AccessLogBucket\n"
                  + "          LogFilePrefix: !Sub \"${AWS::StackName}/reprocessor-trail/\"\n"
                  + "        - !Ref AWS::NoValue\n",
              ""));

  /**
   * template.yaml without any of {@link #FIXES}; a fix it no longer holds as written is noted in
   * {@link #notFound}, for the test to name.
   */
  private static String withoutTheFixes() throws IOException {
    String copy = Files.readString(ROOT.resolve("template.yaml"));
    for (Fix fix : FIXES) {
      if (!copy.contains(fix.text())) {
        notFound.add(fix.without());
      }
      copy = copy.replace(fix.text(), fix.replacement());
    }
    return copy;
  }

  private static final List<Shipped> shipped = new ArrayList<>();
  private static Path withoutTheFixes;
  private static final List<Finding> notFound = new ArrayList<>();
  private static Map<String, Scanned> scans;

  @BeforeAll
  static void scan(@TempDir Path dir) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path template : shippedTemplates()) {
      String name = ROOT.relativize(template).toString();
      int n = shipped.size();
      SamTemplate read = SamTemplate.load(template);
      Path asWritten = dir.resolve("t" + n + "-as-written" + extension(template));
      Files.copy(template, asWritten);
      Path allOn = write(dir.resolve("t" + n + "-all-on.json"), allConditionsTrue(read.raw()));
      Path unskipped =
          write(
              dir.resolve("t" + n + "-unskipped.json"),
              withoutSkips(allConditionsTrue(read.raw())));
      shipped.add(new Shipped(name, read, asWritten, allOn, unskipped));
      files.addAll(List.of(asWritten, allOn, unskipped));
    }
    Path yaml = dir.resolve("copy.yaml");
    Files.writeString(yaml, withoutTheFixes());
    withoutTheFixes =
        write(dir.resolve("copy-all-on.json"), allConditionsTrue(SamTemplate.load(yaml).raw()));
    files.add(withoutTheFixes);
    scans = checkov(dir, files);
  }

  @Test
  void theShippedTemplates_haveNoFinding_asWrittenOrWithEveryOptionOn() {
    assertThat(shipped).extracting(Shipped::name).contains("template.yaml");
    for (Shipped t : shipped) {
      for (Path view : List.of(t.asWritten(), t.allOn())) {
        assertThat(scans.get(name(view)).failed())
            .as(
                "checkov's findings on %s (%s): fix each, or skip it beside its resource with the"
                    + " reason (Metadata: checkov: skip: - id: CKV_..., comment: why)",
                t.name(), view.getFileName())
            .isEmpty();
      }
    }
  }

  @Test
  void everyOptionOn_scansTheResourcesTheDefaultsLeaveOut() {
    Shipped template = shipped.getFirst();
    Set<String> asWritten = scans.get(name(template.asWritten())).resources();
    Set<String> allOn = scans.get(name(template.allOn())).resources();
    assertThat(allOn).containsAll(asWritten);
    assertThat(allOn)
        .as("resources behind an option that is off by default")
        .contains("ReprocessorTrail", "ReprocessorTrailBucket", "AlarmTopicKey")
        .hasSizeGreaterThan(asWritten.size());
    assertThat(asWritten).doesNotContain("ReprocessorTrail");
    // Every resource of a type checkov checks is scanned in the view with every option on.
    Set<String> checkedTypes = new TreeSet<>();
    Map<String, Object> resources = SamTemplate.map(template.template().raw().get("Resources"));
    scans.values().stream()
        .flatMap(s -> s.resources().stream())
        .forEach(
            r -> {
              if (resources.containsKey(r)) {
                checkedTypes.add(String.valueOf(SamTemplate.map(resources.get(r)).get("Type")));
              }
            });
    resources.forEach(
        (id, r) -> {
          if (checkedTypes.contains(String.valueOf(SamTemplate.map(r).get("Type")))) {
            assertThat(allOn).as("checkov scans %s with every option on", id).contains(id);
          }
        });
  }

  @Test
  void everySkip_saysWhy_andHidesAFindingThereWouldBeWithoutIt() {
    int skips = 0;
    for (Shipped t : shipped) {
      Scanned unskipped = scans.get(name(t.unskipped()));
      Scanned allOn = scans.get(name(t.allOn()));
      for (Map.Entry<String, List<Map<String, Object>>> e : skips(t.template().raw()).entrySet()) {
        String resource = e.getKey();
        for (Map<String, Object> skip : e.getValue()) {
          String id = String.valueOf(skip.get("id"));
          String comment = String.valueOf(skip.get("comment"));
          skips++;
          assertThat(comment)
              .as("the reason for skipping %s on %s (%s)", id, resource, t.name())
              .hasSizeGreaterThan(60);
          assertThat(unskipped.failed())
              .as("without its skip, checkov finds %s on %s (%s)", id, resource, t.name())
              .anyMatch(f -> f.check().equals(id) && f.resource().equals(resource));
          assertThat(allOn.skipped())
              .as("checkov reads the skip of %s on %s (%s)", id, resource, t.name())
              .anyMatch(f -> f.check().equals(id) && f.resource().equals(resource));
        }
      }
    }
    assertThat(skips).as("the skips of template.yaml").isPositive();
  }

  @Test
  void aTemplateWithoutTheFixes_failsTheScan_namingEachCheckAndResource() {
    assertThat(notFound)
        .as("fixes template.yaml no longer holds as this test removes them: update FIXES")
        .isEmpty();
    List<Finding> failed = scans.get(name(withoutTheFixes)).failed();
    for (Fix fix : FIXES) {
      assertThat(failed)
          .as("a copy of template.yaml without the fix of %s", fix.without())
          .anyMatch(
              f ->
                  f.check().equals(fix.without().check())
                      && f.resource().equals(fix.without().resource()));
    }
  }

  /** template.yaml, and every template under examples/ (none yet). */
  private static List<Path> shippedTemplates() throws IOException {
    List<Path> templates = new ArrayList<>(List.of(ROOT.resolve("template.yaml")));
    Path examples = ROOT.resolve("examples");
    if (Files.isDirectory(examples)) {
      try (Stream<Path> files = Files.walk(examples)) {
        files
            .filter(Files::isRegularFile)
            .filter(p -> p.toString().matches(".*\\.(ya?ml|json)$"))
            .filter(TemplateCheckovTest::isTemplate)
            .sorted()
            .forEach(templates::add);
      }
    }
    return templates;
  }

  private static boolean isTemplate(Path file) {
    try {
      String text = Files.readString(file);
      return text.contains("AWSTemplateFormatVersion") || text.contains("AWS::Serverless-2016");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String extension(Path file) {
    String name = file.getFileName().toString();
    return name.substring(name.lastIndexOf('.'));
  }

  /** The template with every condition true: no resource left out, every If's first branch. */
  private static Map<String, Object> allConditionsTrue(Map<String, Object> raw) {
    Map<String, Object> copy = JSON.convertValue(raw, Map.class);
    if (copy.get("Conditions") instanceof Map<?, ?>) {
      SamTemplate.map(copy.get("Conditions"))
          .replaceAll((name, c) -> Map.of("Fn::Equals", List.of("on", "on")));
    }
    return copy;
  }

  private static Map<String, Object> withoutSkips(Map<String, Object> raw) {
    for (Object resource : SamTemplate.map(raw.get("Resources")).values()) {
      if (SamTemplate.map(resource).get("Metadata") instanceof Map<?, ?> metadata) {
        metadata.remove("checkov");
      }
    }
    return raw;
  }

  /** Each resource's skips, as written in its {@code Metadata}. */
  private static Map<String, List<Map<String, Object>>> skips(Map<String, Object> raw) {
    Map<String, List<Map<String, Object>>> skips = new LinkedHashMap<>();
    SamTemplate.map(raw.get("Resources"))
        .forEach(
            (id, r) -> {
              Object skip =
                  SamTemplate.map(
                          SamTemplate.map(SamTemplate.map(r).get("Metadata")).get("checkov"))
                      .get("skip");
              if (skip instanceof List<?> list) {
                skips.put(id, list.stream().map(SamTemplate::map).toList());
              }
            });
    return skips;
  }

  private static Path write(Path file, Map<String, Object> template) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), template);
    return file;
  }

  private static String name(Path file) {
    return "/" + file.getFileName();
  }

  /** One run of checkov over {@code files} (in {@code dir}): what it said of each, by its path. */
  private static Map<String, Scanned> checkov(Path dir, List<Path> files) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(CHECKOV.toString(), "--framework", "cloudformation", "--output", "json", "-f"));
    files.forEach(f -> command.add(f.getFileName().toString()));
    Path out = dir.resolve("checkov.json");
    Path log = dir.resolve("checkov.log");
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(log.toFile())
              .start();
      // The first use installs checkov (scripts/checkov), which takes a minute or two.
      if (!process.waitFor(15, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("checkov did not finish: " + Files.readString(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running checkov", e);
    }
    // checkov exits 1 when it finds something; anything else, or no report, is a failure to run.
    JsonNode report;
    try {
      report = JSON.readTree(out.toFile());
    } catch (IOException e) {
      report = null;
    }
    if (process.exitValue() > 1 || report == null || !report.has("results")) {
      throw new AssertionError(
          "checkov failed (exit "
              + process.exitValue()
              + "):\n"
              + Files.readString(log, StandardCharsets.UTF_8)
              + Files.readString(out, StandardCharsets.UTF_8));
    }
    assertThat(report.path("check_type").asText()).isEqualTo("cloudformation");
    assertThat(report.path("summary").path("parsing_errors").asInt())
        .as("templates checkov could not read: %s", report.path("results").path("parsing_errors"))
        .isZero();
    Map<String, Scanned> scanned = new LinkedHashMap<>();
    files.forEach(
        f ->
            scanned.put(
                name(f), new Scanned(new ArrayList<>(), new ArrayList<>(), new TreeSet<>())));
    for (String kind : List.of("passed_checks", "failed_checks", "skipped_checks")) {
      for (JsonNode result : report.path("results").path(kind)) {
        Scanned of = scanned.get(result.path("file_path").asText());
        assertThat(of).as("a result for a file not scanned: %s", result).isNotNull();
        String resource = result.path("resource").asText();
        Finding finding =
            new Finding(
                result.path("check_id").asText(),
                resource.substring(resource.indexOf('.') + 1),
                result.path("check_name").asText());
        of.resources().add(finding.resource());
        if (kind.equals("failed_checks")) {
          of.failed().add(finding);
        } else if (kind.equals("skipped_checks")) {
          of.skipped().add(finding);
        }
      }
    }
    scanned.forEach(
        (file, s) ->
            assertThat(s.resources()).as("the resources checkov scanned in %s", file).isNotEmpty());
    return scanned;
  }
}
