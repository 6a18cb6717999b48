package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.docs.DocPages.Page;
import dev.lambdaoutbox.poller.internal.route.DestinationRouter;
import dev.lambdaoutbox.store.config.Setting;
import dev.lambdaoutbox.template.TemplateFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration tables against template.yaml and the configuration code: a row per template
 * parameter naming the variables it sets (defaults and bounds: {@code TemplateParametersTest}); a
 * row per variable the functions read, each variable documented once, in one of the two tables;
 * each declared default of a variable (which the tables show) is what the parsers take when it is
 * unset; and the routing example is what the poller's router does.
 */
class ConfigurationDocsTest {
  static final String PARAMETERS = "| parameter | variable | default | bounds | meaning |";
  static final String VARIABLES = "| variable | read by | default | bounds | meaning |";
  static final String ROUTES = "| event type | goes to |";

  @Test
  void everyTemplateParameter_hasOneRow_namingTheVariablesItSets() {
    List<List<String>> rows = rows(PARAMETERS);
    Map<String, Integer> seen = new TreeMap<>();
    Map<String, Set<String>> setBy = new TreeMap<>();
    TemplateFacts.variables()
        .forEach(
            (variable, parameters) ->
                parameters.forEach(
                    p -> setBy.computeIfAbsent(p, x -> new TreeSet<>()).add(variable)));
    for (List<String> row : rows) {
      String parameter = DocPages.codeSpans(row.get(0)).get(0);
      seen.merge(parameter, 1, Integer::sum);
      assertThat(TemplateFacts.parameters()).as("a row for a parameter").contains(parameter);
      assertThat(variables(row.get(1)))
          .as("the variables %s sets", parameter)
          .isEqualTo(setBy.getOrDefault(parameter, Set.of()));
    }
    assertThat(seen.keySet()).isEqualTo(new TreeSet<>(TemplateFacts.parameters()));
    assertThat(seen.values()).as("one row each").containsOnly(1);
  }

  @Test
  void everyVariableTheFunctionsRead_isDocumentedOnce_inOneOfTheTables() {
    List<String> documented = new ArrayList<>();
    for (List<String> row : rows(PARAMETERS)) {
      // A variable in parentheses is set by the parameter only as another one's default, and is
      // documented in that other parameter's row.
      documented.addAll(variables(row.get(1).replaceAll("\\([^)]*\\)", "")));
    }
    for (List<String> row : rows(VARIABLES)) {
      documented.addAll(DocPages.codeSpans(row.get(0)));
    }
    Set<String> read = CodeFacts.functionVariables();
    assertThat(read).as("the functions read variables").hasSizeGreaterThan(30);
    Map<String, Integer> count = new TreeMap<>();
    documented.forEach(v -> count.merge(v, 1, Integer::sum));
    for (String variable : read) {
      assertThat(count.getOrDefault(variable, 0))
          .as("%s is documented once in docs/configuration.md", variable)
          .isEqualTo(1);
    }
    for (String variable : count.keySet()) {
      assertThat(read.contains(variable) || variable.startsWith("AWS_"))
          .as("%s is a variable the functions read (or the SDK's)", variable)
          .isTrue();
    }
    TemplateFacts.variables()
        .keySet()
        .forEach(
            v -> assertThat(read).as("the template sets %s: the code reads it", v).contains(v));
  }

  /**
   * Each declared default (which the tables show) is what the function's configuration parser takes
   * when the variable is unset: setting the variable to it changes nothing.
   */
  @Test
  void everyDeclaredDefault_isWhatTheParsersTakeWhenTheVariableIsUnset() {
    int checked = 0;
    for (Map.Entry<String, List<Setting>> function : SettingsReference.FUNCTIONS.entrySet()) {
      for (Setting setting : function.getValue()) {
        if (setting.defaultValue() == null || setting.name().startsWith("AWS_")) {
          continue; // none: nothing to compare
        }
        assertThat(
                ConfigParsers.differenceFromDefault(
                    function.getKey(), setting.name(), setting.defaultValue()))
            .as("%s's %s declared default %s", function.getKey(), setting, setting.defaultValue())
            .isNull();
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(40);
    assertThat(ConfigParsers.differenceFromDefault("poller", "OUTBOX_BATCH_SIZE", "50"))
        .as("the check can fail")
        .isNotNull();
  }

  @Test
  void eachFunctionsDeclarations_nameEachVariableOnce_describeIt_andRefuseNamingEveryChoice() {
    SettingsReference.FUNCTIONS.forEach(
        (function, settings) -> {
          Set<String> names = new TreeSet<>();
          for (Setting s : settings) {
            assertThat(names.add(s.name())).as("%s declares %s once", function, s).isTrue();
            assertThat(s.meaning()).as("%s has a meaning", s).isNotBlank();
            if (s.type() == Setting.Type.TEXT) {
              assertThat(s.format()).as("%s says what it takes", s).isNotBlank();
            }
            for (String choice : s.choices()) {
              assertThat(s.refusal()).as("%s's refusal names %s", s, choice).contains(choice);
            }
          }
        });
  }

  @Test
  void theRoutingExample_isWhatThePollersRouterDoes() throws Exception {
    Page page = pageWith(ROUTES);
    String prose = page.prose();
    Matcher json =
        Pattern.compile("`(\\{\"[^`]+})`").matcher(prose.substring(0, prose.indexOf(ROUTES)));
    String routesJson = null;
    while (json.find()) {
      routesJson = json.group(1);
    }
    assertThat(routesJson).as("a Routes example above the table").isNotNull();
    Map<String, String> routes =
        new ObjectMapper()
            .readValue(routesJson, new TypeReference<LinkedHashMap<String, String>>() {});
    DestinationRouter router =
        new DestinationRouter(routes, Optional.of("the default destination"));
    List<List<String>> rows = page.table(ROUTES);
    assertThat(rows).hasSizeGreaterThan(3);
    for (List<String> row : rows) {
      String eventType = DocPages.codeSpans(row.get(0)).get(0);
      List<String> said = DocPages.codeSpans(row.get(1));
      String expected = said.isEmpty() ? row.get(1) : said.get(0);
      assertThat(router.routeEventType(eventType)).as(eventType).contains(expected);
    }
  }

  /** The backticked {@code OUTBOX_} names of a cell. */
  private static Set<String> variables(String cell) {
    Set<String> names = new TreeSet<>();
    for (String span : DocPages.codeSpans(cell)) {
      if (span.startsWith("OUTBOX_")) {
        names.add(span);
      }
    }
    return names;
  }

  /** The rows of the one table with this header, wherever it is. */
  static List<List<String>> rows(String header) {
    return pageWith(header).table(header);
  }

  private static Page pageWith(String header) {
    List<Page> pages = DocPages.all().stream().filter(p -> !p.table(header).isEmpty()).toList();
    assertThat(pages).as("one page has the table %s", header).hasSize(1);
    return pages.get(0);
  }
}
