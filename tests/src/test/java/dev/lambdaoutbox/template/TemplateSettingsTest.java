package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.StackParameters;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.reprocessor.ReprocessorVariables;
import dev.lambdaoutbox.store.config.Setting;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * template.yaml against the settings' declarations ({@code PollerVariables}, {@code
 * ReprocessorVariables}, with the {@code DatabaseVariables} and {@code SharedVariables} both read):
 * every variable the template gives a function is one that function declares, set from the
 * parameter the declaration names; every parameter a declaration names exists with the declared
 * default and the declared bounds (range or values); and every parameter is either a declared
 * setting's or one of the stack's alone ({@code StackParameters}), never both. Each check is also
 * shown to fail on a declaration that disagrees.
 */
class TemplateSettingsTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();

  private static final Map<String, List<Setting>> FUNCTIONS =
      Map.of(
          "PollerFunction", PollerVariables.all(),
          "DlqReprocessorFunction", ReprocessorVariables.all());

  /**
   * Stack parameters the template uses in a variable beside the one its declaration names, by
   * variable ({@link StackParameters}' {@code feeds}).
   */
  private static final Map<String, Set<String>> ALSO_FEEDING = alsoFeeding();

  private static Map<String, Set<String>> alsoFeeding() {
    Map<String, Set<String>> feeding = new TreeMap<>();
    StackParameters.ALL.forEach(
        (parameter, p) -> {
          if (p.feeds() != null) {
            feeding.computeIfAbsent(p.feeds(), v -> new LinkedHashSet<>()).add(parameter);
          }
        });
    return feeding;
  }

  @Test
  void everyVariableTheTemplateSets_isDeclaredForThatFunction_setFromItsDeclaredParameter() {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, List<Setting>> function : FUNCTIONS.entrySet()) {
      Map<String, Setting> declared = byName(function.getValue());
      Map<String, Set<String>> set = templateVariables(function.getKey());
      for (Map.Entry<String, Set<String>> variable : set.entrySet()) {
        checked++;
        problems.addAll(disagreement(function.getKey(), declared.get(variable.getKey()), variable));
      }
    }
    assertThat(problems).isEmpty();
    assertThat(checked).isGreaterThan(25);

    Setting misnamed = PollerVariables.BATCH_SIZE.parameter("MaxRetries");
    assertThat(
            disagreement(
                "PollerFunction", misnamed, Map.entry("OUTBOX_BATCH_SIZE", Set.of("BatchSize"))))
        .as("the check can fail")
        .isNotEmpty();
  }

  @Test
  void everyDeclaredParameter_isSetOnEveryFunctionThatDeclaresIt() {
    List<String> problems = new ArrayList<>();
    FUNCTIONS.forEach(
        (function, settings) -> {
          Map<String, Set<String>> set = templateVariables(function);
          for (Setting s : settings) {
            if (s.parameter() != null
                && !set.getOrDefault(s.name(), Set.of()).contains(s.parameter())) {
              problems.add(
                  function
                      + " declares "
                      + s
                      + " set by "
                      + s.parameter()
                      + "; the template does not");
            }
          }
        });
    assertThat(problems).isEmpty();
  }

  @Test
  void everyDeclaredParameter_hasTheDeclaredDefaultAndBounds() {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Setting s : declaredWithParameters()) {
      problems.addAll(templateDisagreesWith(s));
      checked++;
    }
    assertThat(problems).isEmpty();
    assertThat(checked).isGreaterThan(20);

    assertThat(
            templateDisagreesWith(
                Setting.number("OUTBOX_BATCH_SIZE", Setting.Type.INTEGER, 100, 1, 999)
                    .parameter("BatchSize")))
        .as("a bound off by one fails")
        .isNotEmpty();
    assertThat(templateDisagreesWith(PollerVariables.MAX_RETRIES.withDefault("11")))
        .as("another default fails")
        .isNotEmpty();
    assertThat(
            templateDisagreesWith(
                Setting.choice("OUTBOX_ORDERING", "none", List.of("none"), "is not none")
                    .parameter("Ordering")))
        .as("other values fail")
        .isNotEmpty();
  }

  @Test
  void everyParameterOfTheTemplate_isOneSettingsOrTheStacksAlone() {
    Set<String> ofSettings = new LinkedHashSet<>();
    declaredWithParameters().forEach(s -> ofSettings.add(s.parameter()));
    Set<String> ofTheStack = new LinkedHashSet<>(TEMPLATE.parameters().keySet());
    ofTheStack.removeAll(ofSettings);
    assertThat(TEMPLATE.parameters().keySet()).containsAll(ofSettings);
    for (String parameter : ofTheStack) {
      assertThat(FUNCTIONS.keySet())
          .as("%s is the stack's alone: no function's variable is set from it", parameter)
          .noneMatch(
              function ->
                  templateVariables(function).entrySet().stream()
                      .anyMatch(
                          v ->
                              v.getValue().contains(parameter)
                                  && !ALSO_FEEDING
                                      .getOrDefault(v.getKey(), Set.of())
                                      .contains(parameter)));
    }
    assertThat(ofTheStack)
        .as("the stack's own parameters are those StackParameters describes")
        .isEqualTo(StackParameters.ALL.keySet());
  }

  /** Why the template's {@code variable} of {@code function} disagrees with its declaration. */
  private static List<String> disagreement(
      String function, Setting declared, Map.Entry<String, Set<String>> variable) {
    String name = variable.getKey();
    if (declared == null) {
      return List.of(function + ": the template sets " + name + ", which it does not declare");
    }
    Set<String> expected = new LinkedHashSet<>();
    if (declared.parameter() != null) {
      expected.add(declared.parameter());
    }
    expected.addAll(ALSO_FEEDING.getOrDefault(name, Set.of()));
    if (!variable.getValue().equals(expected)) {
      return List.of(
          function
              + ": the template sets "
              + name
              + " from "
              + variable.getValue()
              + "; the declaration says "
              + expected);
    }
    return List.of();
  }

  /** What the template says of the parameter that {@code s} names, where it disagrees. */
  private static List<String> templateDisagreesWith(Setting s) {
    Map<String, Object> p = TEMPLATE.parameter(s.parameter());
    List<String> problems = new ArrayList<>();
    Object fallback = p.get("Default");
    String templateDefault = fallback == null ? null : normalized(fallback);
    if (s.defaultValue() == null) {
      if (templateDefault != null && !templateDefault.isEmpty()) {
        problems.add(s + ": no default declared; " + s.parameter() + " has " + templateDefault);
      }
    } else if (!s.defaultValue().equals(templateDefault)) {
      problems.add(
          s
              + ": declared default '"
              + s.defaultValue()
              + "'; "
              + s.parameter()
              + " defaults to '"
              + templateDefault
              + "'");
    }
    switch (s.type()) {
      case CHOICE -> {
        List<String> values =
            p.get("AllowedValues") instanceof List<?> list
                ? list.stream().map(TemplateSettingsTest::normalized).toList()
                : List.of();
        if (!values.equals(s.choices())) {
          problems.add(
              s + ": declared " + s.choices() + "; " + s.parameter() + " allows " + values);
        }
      }
      case TEXT -> {
        // A text's pattern is probed against the code itself (TemplateParametersTest).
      }
      default -> {
        String range = normalized(p.get("MinValue")) + "–" + normalized(p.get("MaxValue"));
        if (!range.equals(s.min() + "–" + s.max())) {
          problems.add(
              s + ": declared " + s.min() + "–" + s.max() + "; " + s.parameter() + " " + range);
        }
      }
    }
    return problems;
  }

  /** Every declared setting a parameter sets, each once. */
  private static List<Setting> declaredWithParameters() {
    Map<String, Setting> all = new LinkedHashMap<>();
    FUNCTIONS.values().forEach(list -> list.forEach(s -> all.putIfAbsent(s.name(), s)));
    return all.values().stream().filter(s -> s.parameter() != null).toList();
  }

  /** The variables the template gives {@code function}, each to the parameters it refers to. */
  private static Map<String, Set<String>> templateVariables(String function) {
    Map<String, Set<String>> variables = new TreeMap<>();
    TEMPLATE
        .rawEnvironment(function)
        .forEach(
            (name, raw) -> {
              Set<String> refs = new LinkedHashSet<>();
              collectParameterRefs(raw, refs);
              variables.put(name, refs);
            });
    return variables;
  }

  private static void collectParameterRefs(Object node, Set<String> into) {
    if (node instanceof Map<?, ?> map) {
      Object ref = map.get("Ref");
      if (ref != null && TEMPLATE.parameters().containsKey(String.valueOf(ref))) {
        into.add(String.valueOf(ref));
      }
      map.values().forEach(v -> collectParameterRefs(v, into));
    } else if (node instanceof List<?> list) {
      list.forEach(v -> collectParameterRefs(v, into));
    }
  }

  private static Map<String, Setting> byName(List<Setting> settings) {
    Map<String, Setting> byName = new LinkedHashMap<>();
    settings.forEach(s -> byName.put(s.name(), s));
    return byName;
  }

  /** A YAML scalar as an environment value: {@code 10}, not {@code 10.0}. */
  private static String normalized(Object value) {
    String s = String.valueOf(value);
    return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
  }
}
