package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.docs.DocPages.Page;
import dev.lambdaoutbox.template.TemplateFacts;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * Lists and tables of the pages against what they list: the metrics each function emits, a runbook
 * section per alarm of the template, the AWS services the packaged functions call among the VPC
 * endpoints, the tables the migrations create, and the sizes of the packaged jars.
 */
class PageFactsTest {
  @Test
  void theMetricsTables_listExactlyWhatEachFunctionEmits() {
    assertThat(names(rows("| poller metric | what it counts |")))
        .isEqualTo(new TreeSet<>(CodeFacts.emittedMetrics("poller-function")));
    assertThat(names(rows("| reprocessor metric | what it counts |")))
        .isEqualTo(new TreeSet<>(CodeFacts.emittedMetrics("dlq-reprocessor-function")));
    assertThat(CodeFacts.emittedMetrics("poller-function")).contains("DeadLettered");
  }

  @Test
  void theDashboardTable_namesEachWidget_withExactlyTheMetricsItPlots() throws IOException {
    Map<String, Set<String>> documented = new TreeMap<>();
    for (List<String> row : rows("| widget | what it plots |")) {
      Set<String> metrics = new TreeSet<>(DocPages.codeSpans(row.get(1)));
      metrics.removeAll(TemplateFacts.allAlarms());
      documented.put(row.get(0), metrics);
    }
    JsonNode body =
        new ObjectMapper()
            .readTree(
                String.valueOf(TemplateFacts.properties("OutboxDashboard").get("DashboardBody")));
    Map<String, Set<String>> plotted = new TreeMap<>();
    for (JsonNode widget : body.get("widgets")) {
      Set<String> metrics = new TreeSet<>();
      widget.at("/properties/metrics").forEach(m -> metrics.add(m.get(1).asText()));
      plotted.put(widget.at("/properties/title").asText(), metrics);
    }
    assertThat(documented).isEqualTo(plotted);
  }

  @Test
  void everyAlarm_hasOneRunbookSection_namingIt() {
    for (String alarm : TemplateFacts.allAlarms()) {
      List<String> sections = new ArrayList<>();
      for (Page page : DocPages.all()) {
        for (String heading : page.headings()) {
          if (heading.contains("`" + alarm + "`")) {
            sections.add(page + ": " + heading);
          }
        }
      }
      assertThat(sections).as("the runbook section of %s", alarm).hasSize(1);
    }
  }

  @Test
  void theVpcEndpoints_nameEveryServiceThePackagedFunctionsCall() throws IOException {
    Set<String> called = new TreeSet<>();
    for (String module : List.of("poller-function", "dlq-reprocessor-function")) {
      try (ZipFile jar = new ZipFile(PackagedFunction.lambdaJar(module).toFile())) {
        Pattern service = Pattern.compile("^software/amazon/awssdk/services/([a-z0-9]+)/");
        jar.stream()
            .forEach(
                e -> {
                  Matcher m = service.matcher(e.getName());
                  if (m.find()) {
                    called.add(m.group(1));
                  }
                });
      }
    }
    assertThat(called).as("the functions call AWS services").contains("sns", "sqs");
    // The Data API is used with StoreMode data-api only, where the functions run outside any VPC.
    called.remove("rdsdata");
    // The SDK's package is named for the product; the endpoint, for the service's own name.
    if (called.remove("eventbridge")) {
      called.add("events");
    }
    String paragraph = paragraphWith("com.amazonaws.<region>.");
    Set<String> endpoints = new TreeSet<>();
    for (String span : DocPages.codeSpans(paragraph)) {
      Matcher m = Pattern.compile("^(?:com\\.amazonaws\\.<region>)?\\.([a-z0-9-]+)$").matcher(span);
      if (m.matches()) {
        endpoints.add(m.group(1));
      }
    }
    assertThat(endpoints).containsAll(called);
  }

  @Test
  void theListOfTables_isWhatOutboxTablesNames() {
    String paragraph = paragraphWith("The tables, each under the prefix:");
    assertThat(new TreeSet<>(DocPages.codeSpans(paragraph))).isEqualTo(CodeFacts.tables());
  }

  @Test
  void theArtifactSizes_areThePackagedJarsWithinATenth() throws IOException {
    List<List<String>> rows = rows("| artifact | size |");
    assertThat(rows).hasSize(2);
    for (List<String> row : rows) {
      String artifact = DocPages.codeSpans(row.get(0)).get(0);
      String jar = Path.of(artifact).getFileName().toString();
      String module = jar.substring(0, jar.indexOf("-0"));
      Path built = DocPages.ROOT.resolve(module).resolve("target").resolve(jar);
      assertThat(built).as("%s is what the build makes", artifact).isRegularFile();
      double saidMb = Double.parseDouble(row.get(1).replace(" MB", ""));
      double mb = Files.size(built) / 1e6;
      assertThat(Math.abs(mb - saidMb) / mb)
          .as("%s: the page says %.1f MB, the jar is %.1f MB", artifact, saidMb, mb)
          .isLessThan(0.1);
    }
  }

  private static Set<String> names(List<List<String>> rows) {
    Set<String> names = new TreeSet<>();
    rows.forEach(r -> names.addAll(DocPages.codeSpans(r.get(0))));
    return names;
  }

  private static List<List<String>> rows(String header) {
    List<List<String>> rows = new ArrayList<>();
    DocPages.all().forEach(p -> rows.addAll(p.table(header)));
    assertThat(rows).as("a page has the table %s", header).isNotEmpty();
    return rows;
  }

  /** The one paragraph of the pages' prose holding {@code text}. */
  private static String paragraphWith(String text) {
    List<String> found = new ArrayList<>();
    for (Page page : DocPages.all()) {
      for (String paragraph : page.prose().split("\n\\s*\n")) {
        if (paragraph.contains(text)) {
          found.add(paragraph);
        }
      }
    }
    assertThat(found).as("one paragraph says %s", text).hasSize(1);
    return found.get(0);
  }
}
