package dev.lambdaoutbox.template;

import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs one function of a resolved template the way Lambda would run the deployed stack: the
 * packaged jar of its {@code CodeUri} module, its {@code Handler}, and exactly the environment the
 * template gives it, plus the runtime's own AWS variables (endpoint, region, credentials).
 */
final class TemplateFunction {
  /** What one invocation returned, and everything the function printed (logs, EMF lines). */
  record Invocation(LambdaRuntimeEmulator.Result result, String output) {}

  private TemplateFunction() {}

  /**
   * One invocation of a freshly started function, with {@code timeout} as its remaining time when
   * it takes the event (its start-up not counted, as in Lambda).
   */
  static Invocation invoke(
      SamTemplate.Resolved stack,
      String function,
      String event,
      Duration timeout,
      AwsEndpoint aws,
      Map<String, String> overrides)
      throws Exception {
    Map<String, Object> properties = stack.properties(function);
    Map<String, String> env = new LinkedHashMap<>(stack.environment(function));
    env.putAll(aws.environment());
    overrides.forEach(
        (name, value) -> {
          if (value == null) {
            env.remove(name);
          } else {
            env.put(name, value);
          }
        });
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction fn =
            PackagedFunction.start(
                String.valueOf(properties.get("CodeUri")),
                String.valueOf(properties.get("Handler")),
                env,
                runtime)) {
      LambdaRuntimeEmulator.Result result = runtime.invoke(event, timeout);
      return new Invocation(result, fn.output());
    }
  }
}
