package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.reprocessor.ReprocessorConfig;
import dev.lambdaoutbox.store.config.ConfigurationException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The functions' configuration parsers, as their handlers call them at start-up, over the least
 * environment each store mode needs: to ask whether a documented value is one they accept, and
 * whether a documented default is what they take when the variable is unset.
 */
final class ConfigParsers {
  /** Each function's parser, by the name the configuration reference gives the function. */
  private static final Map<String, Function<Map<String, String>, Object>> BY_FUNCTION =
      Map.of(
          "poller", PollerConfig::fromEnvironment,
          "reprocessor", ReprocessorConfig::fromEnvironment);

  private static final List<Function<Map<String, String>, Object>> PARSERS =
      List.copyOf(BY_FUNCTION.values());

  private ConfigParsers() {}

  /** The least environment of each store mode. */
  static List<Map<String, String>> minimalEnvironments() {
    return List.of(
        Map.of(
            "OUTBOX_JDBC_URL", "jdbc:postgresql://db.internal:5432/app",
            "OUTBOX_DB_USER", "outbox",
            "OUTBOX_DB_PASSWORD", "secret"),
        Map.of(
            "OUTBOX_STORE", "data-api",
            "OUTBOX_DATA_API_RESOURCE_ARN", "arn:aws:rds:us-east-1:123456789012:cluster:orders",
            "OUTBOX_DATA_API_SECRET_ARN",
                "arn:aws:secretsmanager:us-east-1:123456789012:secret:outbox-fn-AbCdEf",
            "OUTBOX_DATABASE", "orders"));
  }

  /**
   * Whether {@code name=value} starts both functions in some store mode: no parser that reads the
   * variable refuses it.
   */
  static boolean accepts(String name, String value) {
    for (Map<String, String> env : minimalEnvironments()) {
      boolean all = true;
      for (Function<Map<String, String>, Object> parser : PARSERS) {
        all &= parse(parser, with(env, name, value)) != null;
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /**
   * Null when setting {@code name} to {@code value} changes the configuration {@code function}'s
   * parser ({@code poller} or {@code reprocessor}) reads in no store mode where the value is
   * accepted (and it is accepted in one): the value is the default. Else what differs.
   */
  static String differenceFromDefault(String function, String name, String value) {
    Function<Map<String, String>, Object> parser = BY_FUNCTION.get(function);
    List<String> differences = new ArrayList<>();
    boolean compared = false;
    for (Map<String, String> env : minimalEnvironments()) {
      Object unset = parse(parser, env);
      Object set = parse(parser, with(env, name, value));
      if (unset == null || set == null) {
        continue;
      }
      compared = true;
      if (!unset.equals(set)) {
        differences.add(set + "\n  instead of\n" + unset);
      }
    }
    if (!compared) {
      return name + "=" + value + " is accepted by the " + function + " in no store mode";
    }
    return differences.isEmpty() ? null : String.join("\n", differences);
  }

  private static Map<String, String> with(Map<String, String> env, String name, String value) {
    Map<String, String> copy = new HashMap<>(env);
    copy.put(name, value);
    return copy;
  }

  private static Object parse(
      Function<Map<String, String>, Object> parser, Map<String, String> env) {
    try {
      return parser.apply(env);
    } catch (ConfigurationException e) {
      return null;
    }
  }
}
