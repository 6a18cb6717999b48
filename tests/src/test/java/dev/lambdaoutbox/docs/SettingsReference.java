package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.reprocessor.ReprocessorVariables;
import dev.lambdaoutbox.store.config.Setting;
import dev.lambdaoutbox.template.TemplateFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The configuration reference of docs/configuration.md, written from the settings' declarations
 * ({@code PollerVariables}, {@code ReprocessorVariables} and the {@code DatabaseVariables} and
 * {@code SharedVariables} both read) and template.yaml: {@code parameters}, a row per template
 * parameter with the variables it sets, and {@code variables}, a row per variable no parameter
 * sets. {@link DocSections} registers both; {@code make docs} rewrites them.
 */
final class SettingsReference {
  /** Each function's declared settings, by the name the reference gives the function. */
  static final Map<String, List<Setting>> FUNCTIONS =
      Map.of("poller", PollerVariables.all(), "reprocessor", ReprocessorVariables.all());

  private static final List<String> FUNCTION_ORDER = List.of("poller", "reprocessor");

  private SettingsReference() {}

  /** Every declared setting, by variable, each with the functions that read it. */
  static Map<String, Map<String, Setting>> byVariable() {
    Map<String, Map<String, Setting>> byName = new LinkedHashMap<>();
    for (String function : FUNCTION_ORDER) {
      for (Setting s : FUNCTIONS.get(function)) {
        byName.computeIfAbsent(s.name(), n -> new LinkedHashMap<>()).put(function, s);
      }
    }
    return byName;
  }

  static String parameters() {
    StringBuilder md = new StringBuilder();
    md.append("| parameter | variable | default | bounds | meaning |\n|---|---|---|---|---|\n");
    for (String parameter : TemplateFacts.parametersInGroupOrder()) {
      List<Setting> settings = settingsOf(parameter);
      StackParameters.Parameter stack = StackParameters.ALL.get(parameter);
      String variables;
      String bounds;
      String meaning;
      if (!settings.isEmpty()) {
        Set<String> names = new LinkedHashSet<>();
        Set<String> meanings = new LinkedHashSet<>();
        settings.forEach(
            s -> {
              names.add("`" + s.name() + "`");
              meanings.add(s.meaning());
            });
        variables = String.join(", ", names);
        bounds = bounds(settings.get(0));
        meaning = String.join(" ", meanings);
      } else if (stack != null) {
        variables =
            stack.feeds() == null ? "—" : "(`" + stack.feeds() + "`, as " + stack.feedsAs() + ")";
        bounds = templateBounds(parameter, stack.bounds());
        meaning = stack.meaning();
      } else {
        throw new IllegalStateException(
            parameter + " is declared neither with a setting nor in StackParameters");
      }
      md.append("| `")
          .append(parameter)
          .append("` | ")
          .append(variables)
          .append(" | ")
          .append(templateDefault(parameter))
          .append(" | ")
          .append(bounds)
          .append(" | ")
          .append(meaning)
          .append(" |\n");
    }
    return md.toString();
  }

  static String variables() {
    StringBuilder md = new StringBuilder();
    md.append("| variable | read by | default | bounds | meaning |\n|---|---|---|---|---|\n");
    byVariable()
        .forEach(
            (name, readers) -> {
              Setting first = readers.values().iterator().next();
              if (first.parameter() != null) {
                return;
              }
              md.append("| `")
                  .append(name)
                  .append("` | ")
                  .append(
                      readers.size() == FUNCTIONS.size()
                          ? "both"
                          : String.join(", ", readers.keySet()))
                  .append(" | ")
                  .append(defaults(readers))
                  .append(" | ")
                  .append(bounds(first))
                  .append(" | ")
                  .append(first.meaning())
                  .append(" |\n");
            });
    return md.toString();
  }

  /** The settings the template parameter sets, in declaration order, each once. */
  static List<Setting> settingsOf(String parameter) {
    List<Setting> settings = new ArrayList<>();
    byVariable()
        .values()
        .forEach(
            readers -> {
              Setting s = readers.values().iterator().next();
              if (parameter.equals(s.parameter())) {
                settings.add(s);
              }
            });
    return settings;
  }

  /** What a setting accepts, as the reference says it. */
  static String bounds(Setting s) {
    return switch (s.type()) {
      case CHOICE -> String.join(", ", s.choices().stream().map(c -> "`" + c + "`").toList());
      case TEXT -> s.format();
      default -> s.min() + "–" + s.max();
    };
  }

  /** The default of a variable, per function where they differ. */
  private static String defaults(Map<String, Setting> readers) {
    Set<String> distinct = new LinkedHashSet<>();
    readers.values().forEach(s -> distinct.add(value(s.defaultValue())));
    if (distinct.size() == 1) {
      return distinct.iterator().next();
    }
    List<String> each = new ArrayList<>();
    readers.forEach((function, s) -> each.add(value(s.defaultValue()) + " (" + function + ")"));
    return String.join(", ", each);
  }

  private static String value(String value) {
    if (value == null) {
      return "none";
    }
    return value.isEmpty() ? "empty" : "`" + value + "`";
  }

  /** A parameter's default as the template gives it: required when it has none. */
  private static String templateDefault(String parameter) {
    Object fallback = TemplateFacts.parameter(parameter).get("Default");
    return fallback == null ? "required" : value(String.valueOf(fallback));
  }

  /** A stack parameter's bounds: the template's values or range, else what it takes in words. */
  private static String templateBounds(String parameter, String declared) {
    Map<String, Object> p = TemplateFacts.parameter(parameter);
    if (p.get("AllowedValues") instanceof List<?> values) {
      return String.join(", ", values.stream().map(v -> "`" + v + "`").toList());
    }
    if (p.containsKey("MinValue") && p.containsKey("MaxValue")) {
      return p.get("MinValue") + "–" + p.get("MaxValue");
    }
    if (p.containsKey("MinValue")) {
      return "≥ " + p.get("MinValue");
    }
    if (declared == null) {
      throw new IllegalStateException(parameter + ": StackParameters must say what it takes");
    }
    return declared;
  }
}
