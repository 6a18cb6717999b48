package dev.lambdaoutbox.testing;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The two Lambda functions as template.yaml deploys them: the module whose shaded jar is the
 * package ({@code CodeUri}), the handler, the timeout and the asynchronous invoke configuration.
 * The template tests check that these equal the template's.
 */
public enum OutboxFunction {
  POLLER(
      "poller",
      "poller-function",
      "dev.lambdaoutbox.poller.PollerHandler::handleRequest",
      Duration.ofSeconds(60),
      AsyncInvokeConfig.of(0, Duration.ofSeconds(60))),
  REPROCESSOR(
      "reprocessor",
      "dlq-reprocessor-function",
      "dev.lambdaoutbox.reprocessor.DeadLetterReprocessorHandler::handleRequest",
      Duration.ofSeconds(300),
      AsyncInvokeConfig.of(0, AsyncInvokeConfig.AWS_DEFAULT.maximumEventAge()));

  private final String shortName;
  private final String module;
  private final String handler;
  private final Duration timeout;
  private final AsyncInvokeConfig asyncInvokeConfig;

  OutboxFunction(
      String shortName,
      String module,
      String handler,
      Duration timeout,
      AsyncInvokeConfig asyncInvokeConfig) {
    this.shortName = shortName;
    this.module = module;
    this.handler = handler;
    this.timeout = timeout;
    this.asyncInvokeConfig = asyncInvokeConfig;
  }

  /** {@code poller} or {@code reprocessor}, as command lines name them. */
  public String shortName() {
    return shortName;
  }

  public String module() {
    return module;
  }

  public String handler() {
    return handler;
  }

  /** The template's timeout (the poller's PollerTimeoutSeconds default). */
  public Duration timeout() {
    return timeout;
  }

  /** The template's {@code EventInvokeConfig}: retries and maximum event age. */
  public AsyncInvokeConfig asyncInvokeConfig() {
    return asyncInvokeConfig;
  }

  /** By short name, module name or enum name, ignoring case. */
  public static Optional<OutboxFunction> named(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(f -> f.shortName.equals(n) || f.module.equals(n) || f.name().equalsIgnoreCase(n))
        .findFirst();
  }
}
