package dev.lambdaoutbox.template;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * The project's {@code template.yaml}, read with the CloudFormation short tags ({@code !Ref},
 * {@code !Sub}, {@code !If}, ...) turned into their long forms, and resolved for one set of
 * parameter values the way CloudFormation would: conditions evaluated, {@code AWS::NoValue}
 * dropped, resources whose condition is false left out.
 */
final class SamTemplate {
  static final String REGION = "us-east-1";
  static final String ACCOUNT = "123456789012";

  private static final String[] FUNCTIONS = {
    "And",
    "Base64",
    "Cidr",
    "Equals",
    "FindInMap",
    "GetAZs",
    "If",
    "ImportValue",
    "Join",
    "Not",
    "Or",
    "Select",
    "Split",
    "Sub",
    "Transform",
    "Contains",
    "EachMemberEquals",
    "EachMemberIn",
    "RefAll",
    "ValueOf",
    "ValueOfAll"
  };
  private static final Object NO_VALUE = new Object();
  private static final Pattern SUB_VARIABLE = Pattern.compile("\\$\\{([^}!]+)}");

  private final Map<String, Object> root;

  private SamTemplate(Map<String, Object> root) {
    this.root = root;
  }

  /** The repository's template.yaml. */
  static SamTemplate load() {
    return load(PackagedFunction.projectRoot().resolve("template.yaml"));
  }

  @SuppressWarnings("unchecked")
  static SamTemplate load(Path file) {
    try (Reader in = Files.newBufferedReader(file)) {
      return new SamTemplate(
          (Map<String, Object>) new Yaml(new CloudFormationConstructor()).load(in));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  /**
   * A template already in its long form, e.g. as AWS's SAM translator left it ({@link
   * SamTranslator}).
   */
  static SamTemplate of(Map<String, Object> root) {
    return new SamTemplate(root);
  }

  /** The template as written (intrinsics in their long form). */
  Map<String, Object> raw() {
    return root;
  }

  Map<String, Object> parameters() {
    return map(root.get("Parameters"));
  }

  Map<String, Object> parameter(String name) {
    Map<String, Object> parameter = map(parameters().get(name));
    if (parameter.isEmpty()) {
      throw new AssertionError("template.yaml has no parameter " + name);
    }
    return parameter;
  }

  /** A resource as written, e.g. to see which parameter an environment variable refers to. */
  Map<String, Object> rawResource(String logicalId) {
    return map(map(root.get("Resources")).get(logicalId));
  }

  /** The environment variables of a function as written: Globals merged with its own. */
  Map<String, Object> rawEnvironment(String function) {
    Map<String, Object> env = new LinkedHashMap<>();
    env.putAll(variables(map(map(root.get("Globals")).get("Function"))));
    env.putAll(variables(map(rawResource(function).get("Properties"))));
    return env;
  }

  private static Map<String, Object> variables(Map<String, Object> properties) {
    return map(map(properties.get("Environment")).get("Variables"));
  }

  /**
   * The template for these parameter values (the others at their defaults), stack name, and values
   * of {@code Ref}s to resources (by default {@code arn-of-<LogicalId>}).
   */
  Resolved resolve(
      Map<String, String> parameterValues, String stackName, Map<String, String> resourceRefs) {
    return new Resolved(parameterValues, stackName, resourceRefs);
  }

  /** The template's {@code StoreMode}s. */
  enum StoreMode {
    JDBC("jdbc"),
    DATA_API("data-api");

    final String value;

    StoreMode(String value) {
      this.value = value;
    }

    @Override
    public String toString() {
      return value;
    }
  }

  static final String SECRET_ARN =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:outbox-fn-AbCdEf";
  static final String CLUSTER_ARN = "arn:aws:rds:us-east-1:123456789012:cluster:orders";

  /**
   * Values for the parameters that the default {@code StoreMode} (jdbc) demands, as a user must
   * give them, plus {@code more} as name, value pairs.
   */
  static Map<String, String> requiredParameters(String... more) {
    return requiredParameters(StoreMode.JDBC, more);
  }

  /**
   * Values for the parameters that {@code mode} demands, as a user must give them (with {@code
   * StoreMode} itself unless it is the default), plus {@code more} as name, value pairs.
   */
  static Map<String, String> requiredParameters(StoreMode mode, String... more) {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("DbSecretArn", SECRET_ARN);
    switch (mode) {
      case JDBC -> {
        parameters.put("JdbcUrl", "jdbc:postgresql://db.internal:5432/app");
        parameters.put("SubnetIds", "subnet-1,subnet-2");
        parameters.put("SecurityGroupIds", "sg-1");
      }
      case DATA_API -> {
        parameters.put("StoreMode", mode.value);
        parameters.put("DataApiClusterArn", CLUSTER_ARN);
        parameters.put("DatabaseName", "orders");
      }
    }
    for (int i = 0; i < more.length; i += 2) {
      parameters.put(more[i], more[i + 1]);
    }
    return parameters;
  }

  /** One resolution of the template. */
  final class Resolved {
    private final Map<String, Object> refs = new LinkedHashMap<>();
    private final Map<String, Boolean> conditions = new LinkedHashMap<>();

    private Resolved(
        Map<String, String> parameterValues, String stackName, Map<String, String> resourceRefs) {
      for (Map.Entry<String, Object> p : parameters().entrySet()) {
        Map<String, Object> definition = map(p.getValue());
        String given = parameterValues.get(p.getKey());
        Object fallback = definition.get("Default");
        String value = given != null ? given : fallback == null ? null : String.valueOf(fallback);
        if (value == null) {
          continue; // a required parameter nobody gave: a Ref to it fails loudly
        }
        boolean list =
            "CommaDelimitedList".equals(definition.get("Type"))
                || String.valueOf(definition.get("Type")).startsWith("List<");
        refs.put(p.getKey(), list ? Arrays.asList(value.split(",", -1)) : value);
      }
      refs.put("AWS::StackName", stackName);
      refs.put("AWS::Region", REGION);
      refs.put("AWS::AccountId", ACCOUNT);
      refs.put("AWS::Partition", "aws");
      refs.put("AWS::URLSuffix", "amazonaws.com");
      refs.put("AWS::NoValue", NO_VALUE);
      for (Map.Entry<String, Object> r : map(root.get("Resources")).entrySet()) {
        String id = r.getKey();
        refs.put(id, resourceRefs.getOrDefault(id, "arn-of-" + id));
        // SAM's reference to the alias it publishes: Ref Function.Alias is that alias's ARN.
        Object properties = map(r.getValue()).get("Properties");
        Object alias = properties == null ? null : map(properties).get("AutoPublishAlias");
        if (alias != null) {
          refs.put(
              id + ".Alias",
              resourceRefs.getOrDefault(id + ".Alias", "arn-of-" + id + "Alias" + alias));
        }
      }
    }

    boolean condition(String name) {
      Boolean known = conditions.get(name);
      if (known == null) {
        Object definition = map(root.get("Conditions")).get(name);
        if (definition == null) {
          throw new AssertionError("template.yaml has no condition " + name);
        }
        known = (Boolean) value(definition);
        conditions.put(name, known);
      }
      return known;
    }

    /** The resources that exist for these parameters, resolved. */
    Map<String, Map<String, Object>> resources() {
      Map<String, Map<String, Object>> resources = new LinkedHashMap<>();
      for (Map.Entry<String, Object> r : map(root.get("Resources")).entrySet()) {
        Map<String, Object> resource = map(r.getValue());
        Object condition = resource.get("Condition");
        if (condition == null || condition(String.valueOf(condition))) {
          resources.put(r.getKey(), map(value(resource)));
        }
      }
      return resources;
    }

    Map<String, Object> properties(String logicalId) {
      Map<String, Object> resource = resources().get(logicalId);
      if (resource == null) {
        throw new AssertionError(logicalId + " does not exist for these parameters");
      }
      return map(resource.get("Properties"));
    }

    Map<String, Map<String, Object>> resourcesOfType(String type) {
      Map<String, Map<String, Object>> found = new LinkedHashMap<>();
      resources()
          .forEach(
              (id, resource) -> {
                if (type.equals(resource.get("Type"))) {
                  found.put(id, resource);
                }
              });
      return found;
    }

    /** What the function's environment variables are for these parameters (Globals merged). */
    Map<String, String> environment(String function) {
      Map<String, String> env = new LinkedHashMap<>();
      rawEnvironment(function)
          .forEach(
              (name, raw) -> {
                Object value = value(raw);
                if (value != NO_VALUE) {
                  env.put(name, String.valueOf(value));
                }
              });
      return env;
    }

    /**
     * The AssertDescription of every rule assertion these parameters break: what CloudFormation
     * would refuse the stack with.
     */
    List<String> ruleFailures() {
      List<String> failures = new ArrayList<>();
      for (Object raw : map(root.get("Rules")).values()) {
        Map<String, Object> rule = map(raw);
        Object when = rule.get("RuleCondition");
        if (when != null && !(Boolean) value(when)) {
          continue;
        }
        for (Object assertion : (List<?>) rule.get("Assertions")) {
          if (!(Boolean) value(map(assertion).get("Assert"))) {
            failures.add(String.valueOf(map(assertion).get("AssertDescription")).strip());
          }
        }
      }
      return failures;
    }

    Map<String, String> outputs() {
      Map<String, String> outputs = new LinkedHashMap<>();
      map(root.get("Outputs"))
          .forEach(
              (name, raw) -> {
                Map<String, Object> output = map(raw);
                Object condition = output.get("Condition");
                if (condition == null || condition(String.valueOf(condition))) {
                  outputs.put(name, String.valueOf(value(output.get("Value"))));
                }
              });
      return outputs;
    }

    /** Resolves any part of the template; {@code AWS::NoValue} entries are dropped. */
    Object value(Object node) {
      if (node instanceof List<?> list) {
        List<Object> resolved = new ArrayList<>();
        for (Object item : list) {
          Object value = value(item);
          if (value != NO_VALUE) {
            resolved.add(value);
          }
        }
        return resolved;
      }
      if (!(node instanceof Map<?, ?> m)) {
        return node;
      }
      Map<String, Object> map = map(m);
      if (map.size() == 1) {
        Map.Entry<String, Object> only = map.entrySet().iterator().next();
        Object function = intrinsic(only.getKey(), only.getValue());
        if (function != null) {
          return function;
        }
      }
      Map<String, Object> resolved = new LinkedHashMap<>();
      map.forEach(
          (key, raw) -> {
            Object value = value(raw);
            if (value != NO_VALUE) {
              resolved.put(key, value);
            }
          });
      return resolved;
    }

    /** The value of an intrinsic function, or null when {@code name} is not one. */
    private Object intrinsic(String name, Object argument) {
      switch (name) {
        case "Ref" -> {
          if (!refs.containsKey(String.valueOf(argument))) {
            throw new AssertionError("Ref to unknown " + argument + " (no value given)");
          }
          return refs.get(String.valueOf(argument));
        }
        case "Condition" -> {
          return condition(String.valueOf(argument));
        }
        case "Fn::If" -> {
          List<?> args = (List<?>) argument;
          return value(condition(String.valueOf(args.get(0))) ? args.get(1) : args.get(2));
        }
        case "Fn::Equals" -> {
          List<?> args = (List<?>) argument;
          return String.valueOf(value(args.get(0))).equals(String.valueOf(value(args.get(1))));
        }
        case "Fn::Not" -> {
          return !(Boolean) value(((List<?>) argument).get(0));
        }
        case "Fn::And" -> {
          return ((List<?>) argument).stream().allMatch(a -> (Boolean) value(a));
        }
        case "Fn::Or" -> {
          return ((List<?>) argument).stream().anyMatch(a -> (Boolean) value(a));
        }
        case "Fn::Join" -> {
          List<?> args = (List<?>) argument;
          List<String> parts = new ArrayList<>();
          for (Object part : (List<?>) value(args.get(1))) {
            parts.add(String.valueOf(part));
          }
          return String.join(String.valueOf(args.get(0)), parts);
        }
        case "Fn::Split" -> {
          List<?> args = (List<?>) argument;
          return Arrays.asList(
              String.valueOf(value(args.get(1))).split(Pattern.quote((String) args.get(0)), -1));
        }
        case "Fn::Select" -> {
          List<?> args = (List<?>) argument;
          return ((List<?>) value(args.get(1)))
              .get(Integer.parseInt(String.valueOf(value(args.get(0)))));
        }
        case "Fn::Contains" -> {
          List<?> args = (List<?>) argument;
          String wanted = String.valueOf(value(args.get(1)));
          return ((List<?>) value(args.get(0)))
              .stream().anyMatch(member -> wanted.equals(String.valueOf(member)));
        }
        case "Fn::EachMemberEquals" -> {
          List<?> args = (List<?>) argument;
          String expected = String.valueOf(value(args.get(1)));
          return ((List<?>) value(args.get(0)))
              .stream().allMatch(member -> expected.equals(String.valueOf(member)));
        }
        case "Fn::GetAtt" -> {
          List<?> args = (List<?>) argument;
          return "getatt-of-" + args.get(0) + "." + args.get(1);
        }
        case "Fn::Sub" -> {
          return sub(argument);
        }
        default -> {
          if (name.startsWith("Fn::")) {
            throw new AssertionError(name + " is not resolved by this test; teach SamTemplate");
          }
          return null;
        }
      }
    }

    private String sub(Object argument) {
      String text;
      Map<String, Object> variables = Map.of();
      if (argument instanceof List<?> args) {
        text = String.valueOf(args.get(0));
        variables = map(args.get(1));
      } else {
        text = String.valueOf(argument);
      }
      Matcher m = SUB_VARIABLE.matcher(text);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1).strip();
        Object value;
        if (variables.containsKey(name)) {
          value = value(variables.get(name));
        } else if (name.contains(".") && !name.startsWith("AWS::")) {
          value = "getatt-of-" + name;
        } else {
          value = intrinsic("Ref", name);
        }
        m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(value)));
      }
      m.appendTail(out);
      return out.toString();
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object node) {
    return node instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** Reads {@code !Ref x} as {@code {Ref: x}}, {@code !Sub s} as {@code {Fn::Sub: s}}, ... */
  private static final class CloudFormationConstructor extends SafeConstructor {
    CloudFormationConstructor() {
      super(new LoaderOptions());
      yamlConstructors.put(new Tag("!Ref"), new LongForm("Ref"));
      yamlConstructors.put(new Tag("!Condition"), new LongForm("Condition"));
      yamlConstructors.put(new Tag("!GetAtt"), new GetAtt());
      for (String function : FUNCTIONS) {
        yamlConstructors.put(new Tag("!" + function), new LongForm("Fn::" + function));
      }
    }

    private class LongForm extends AbstractConstruct {
      private final String key;

      LongForm(String key) {
        this.key = key;
      }

      @Override
      public Object construct(Node node) {
        Object value =
            switch (node) {
              case ScalarNode scalar -> constructScalar(scalar);
              case SequenceNode sequence -> constructSequence(sequence);
              case MappingNode mapping -> constructMapping(mapping);
              default -> throw new IllegalStateException("unexpected node " + node);
            };
        Map<String, Object> longForm = new LinkedHashMap<>();
        longForm.put(key, value);
        return longForm;
      }
    }

    /** {@code !GetAtt Resource.Attribute} or {@code !GetAtt [Resource, Attribute]}. */
    private class GetAtt extends AbstractConstruct {
      @Override
      public Object construct(Node node) {
        List<Object> parts =
            node instanceof ScalarNode scalar
                ? new ArrayList<>(Arrays.asList(constructScalar(scalar).split("\\.", 2)))
                : new ArrayList<>(constructSequence((SequenceNode) node));
        Map<String, Object> longForm = new LinkedHashMap<>();
        longForm.put("Fn::GetAtt", parts);
        return longForm;
      }
    }
  }
}
