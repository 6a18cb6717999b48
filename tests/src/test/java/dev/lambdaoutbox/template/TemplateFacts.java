package dev.lambdaoutbox.template;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the documentation may say about {@code template.yaml}, read from it: parameters and their
 * constraints, outputs, resources, the alarms and functions of the stack on its default parameters,
 * and which environment variable each parameter sets. For the tests that keep the pages true.
 */
public final class TemplateFacts {
  private static final SamTemplate TEMPLATE = SamTemplate.load();

  /**
   * The stack on its defaults (the jdbc mode's required parameters given), named {@code outbox}.
   */
  private static final SamTemplate.Resolved DEFAULTS =
      TEMPLATE.resolve(SamTemplate.requiredParameters(), "outbox", Map.of());

  private TemplateFacts() {}

  public static Set<String> parameters() {
    return TEMPLATE.parameters().keySet();
  }

  /**
   * The parameters in the order the console shows them: by the groups of the template's {@code
   * AWS::CloudFormation::Interface}, then any not in a group, in the template's order.
   */
  public static List<String> parametersInGroupOrder() {
    Set<String> ordered = new LinkedHashSet<>();
    Object groups =
        SamTemplate.map(
                SamTemplate.map(TEMPLATE.raw().get("Metadata"))
                    .get("AWS::CloudFormation::Interface"))
            .get("ParameterGroups");
    if (groups instanceof List<?> list) {
      for (Object group : list) {
        if (SamTemplate.map(group).get("Parameters") instanceof List<?> names) {
          names.forEach(n -> ordered.add(str(n)));
        }
      }
    }
    ordered.addAll(parameters());
    return List.copyOf(ordered);
  }

  /** A parameter as written: Type, Default, AllowedValues, MinValue, MaxValue, AllowedPattern. */
  public static Map<String, Object> parameter(String name) {
    return TEMPLATE.parameter(name);
  }

  /** Null when {@code value} is one the parameter accepts, else why not. */
  public static String refusal(String name, String value) {
    Map<String, Object> p = parameter(name);
    if (p.get("AllowedValues") instanceof List<?> allowed
        && allowed.stream().map(String::valueOf).noneMatch(value::equals)) {
      return "not one of " + allowed;
    }
    if (p.get("AllowedPattern") != null
        && !Pattern.compile(String.valueOf(p.get("AllowedPattern"))).matcher(value).matches()) {
      return "does not match " + p.get("AllowedPattern");
    }
    if ("Number".equals(p.get("Type"))) {
      double number;
      try {
        number = Double.parseDouble(value);
      } catch (NumberFormatException e) {
        return "not a number";
      }
      if (p.containsKey("MinValue") && number < Double.parseDouble(str(p.get("MinValue")))) {
        return "below " + p.get("MinValue");
      }
      if (p.containsKey("MaxValue") && number > Double.parseDouble(str(p.get("MaxValue")))) {
        return "above " + p.get("MaxValue");
      }
    }
    return null;
  }

  /** Every output the template declares, whatever its condition. */
  public static Set<String> outputs() {
    return SamTemplate.map(TEMPLATE.raw().get("Outputs")).keySet();
  }

  /** Logical id to type, for every resource the template declares. */
  public static Map<String, String> resourceTypes() {
    Map<String, String> types = new LinkedHashMap<>();
    SamTemplate.map(TEMPLATE.raw().get("Resources"))
        .forEach((id, r) -> types.put(id, str(SamTemplate.map(r).get("Type"))));
    return types;
  }

  /** The resources of one type on the default parameters, each resolved. */
  public static Map<String, Map<String, Object>> resourcesOfType(String type) {
    return DEFAULTS.resourcesOfType(type);
  }

  /** A resource's resolved properties on the default parameters. */
  public static Map<String, Object> properties(String logicalId) {
    return DEFAULTS.properties(logicalId);
  }

  /** A resource's properties as written (a threshold still a {@code Ref} to its parameter). */
  public static Map<String, Object> rawProperties(String logicalId) {
    return SamTemplate.map(TEMPLATE.rawResource(logicalId).get("Properties"));
  }

  /** The alarms of the stack on its default parameters: name to resolved properties. */
  public static Map<String, Map<String, Object>> alarms() {
    Map<String, Map<String, Object>> alarms = new LinkedHashMap<>();
    DEFAULTS
        .resourcesOfType("AWS::CloudWatch::Alarm")
        .forEach((name, alarm) -> alarms.put(name, SamTemplate.map(alarm.get("Properties"))));
    return alarms;
  }

  /** Every alarm the template declares, whatever its condition. */
  public static Set<String> allAlarms() {
    return declared("AWS::CloudWatch::Alarm");
  }

  /** The serverless functions' logical ids. */
  public static Set<String> functions() {
    return declared("AWS::Serverless::Function");
  }

  /** The logical ids of every resource of {@code type} the template declares. */
  private static Set<String> declared(String type) {
    Set<String> ids = new LinkedHashSet<>();
    resourceTypes()
        .forEach(
            (id, declaredType) -> {
              if (declaredType.equals(type)) {
                ids.add(id);
              }
            });
    return ids;
  }

  /** A function's Globals-merged property, as written (e.g. MemorySize, LoggingConfig). */
  public static Object functionProperty(String function, String property) {
    Object own = SamTemplate.map(TEMPLATE.rawResource(function).get("Properties")).get(property);
    if (own != null) {
      return own;
    }
    return SamTemplate.map(SamTemplate.map(TEMPLATE.raw().get("Globals")).get("Function"))
        .get(property);
  }

  /**
   * Every environment variable the template sets on any function, to the parameters its value
   * refers to ({@code Ref}, in any branch of an {@code If}); empty for a variable set from no
   * parameter (e.g. a {@code Sub} of the stack name).
   */
  public static Map<String, Set<String>> variables() {
    Map<String, Set<String>> variables = new LinkedHashMap<>();
    for (String function : functions()) {
      TEMPLATE
          .rawEnvironment(function)
          .forEach(
              (variable, raw) ->
                  collectRefs(
                      raw, variables.computeIfAbsent(variable, v -> new LinkedHashSet<>())));
    }
    return variables;
  }

  private static void collectRefs(Object node, Set<String> into) {
    if (node instanceof Map<?, ?> map) {
      Object ref = map.get("Ref");
      if (ref != null && parameters().contains(str(ref))) {
        into.add(str(ref));
      }
      map.values().forEach(v -> collectRefs(v, into));
    } else if (node instanceof List<?> list) {
      list.forEach(v -> collectRefs(v, into));
    }
  }

  private static String str(Object o) {
    return String.valueOf(o);
  }
}
