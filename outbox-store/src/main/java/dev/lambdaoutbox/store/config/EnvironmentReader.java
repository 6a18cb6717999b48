package dev.lambdaoutbox.store.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads typed, range-checked values from an environment map (normally {@code System.getenv()}, read
 * once at start-up). Every refusal is a {@link ConfigurationException} naming the variable and the
 * value.
 */
public final class EnvironmentReader {
  private final Map<String, String> env;

  public EnvironmentReader(Map<String, String> env) {
    this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
  }

  /** The trimmed value, or empty when unset or blank. */
  public Optional<String> optional(String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
  }

  public String required(String name, String whatItIs) {
    return optional(name)
        .orElseThrow(() -> new ConfigurationException(name, "is not set; set it to " + whatItIs));
  }

  public String string(String name, String defaultValue) {
    return optional(name).orElse(defaultValue);
  }

  /**
   * The value, or {@code defaultValue}, refused when {@code problem} finds something wrong with it
   * (it returns null for a good value, else what is wrong, e.g. "starts with AWS/, ...").
   */
  public String string(String name, String defaultValue, Function<String, String> problem) {
    String value = string(name, defaultValue);
    String wrong = problem.apply(value);
    if (wrong != null) {
      throw new ConfigurationException(name, "'" + value + "' " + wrong);
    }
    return value;
  }

  public int integer(String name, int defaultValue, int min, int max) {
    Optional<String> raw = optional(name);
    if (raw.isEmpty()) {
      return defaultValue;
    }
    int value;
    try {
      value = Integer.parseInt(raw.get());
    } catch (NumberFormatException e) {
      throw new ConfigurationException(name, "'" + raw.get() + "' is not a whole number", e);
    }
    if (value < min || value > max) {
      throw new ConfigurationException(
          name, value + " is out of range; use a value from " + min + " to " + max);
    }
    return value;
  }

  /** A duration given in whole milliseconds ({@code ..._MS} variables). */
  public Duration millis(String name, Duration defaultValue, Duration min, Duration max) {
    return range(name, Duration.ofMillis(longValue(name, defaultValue.toMillis())), min, max, "ms");
  }

  /** A duration given in whole seconds ({@code ..._SECONDS} variables). */
  public Duration seconds(String name, Duration defaultValue, Duration min, Duration max) {
    return range(
        name, Duration.ofSeconds(longValue(name, defaultValue.toSeconds())), min, max, "s");
  }

  public boolean bool(String name, boolean defaultValue) {
    Optional<String> raw = optional(name);
    if (raw.isEmpty()) {
      return defaultValue;
    }
    return switch (raw.get().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new ConfigurationException(name, "'" + raw.get() + "' is not true or false");
    };
  }

  private long longValue(String name, long defaultValue) {
    Optional<String> raw = optional(name);
    if (raw.isEmpty()) {
      return defaultValue;
    }
    try {
      return Long.parseLong(raw.get());
    } catch (NumberFormatException e) {
      throw new ConfigurationException(name, "'" + raw.get() + "' is not a whole number", e);
    }
  }

  private static Duration range(
      String name, Duration value, Duration min, Duration max, String unit) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      long v = unit.equals("ms") ? value.toMillis() : value.toSeconds();
      long lo = unit.equals("ms") ? min.toMillis() : min.toSeconds();
      long hi = unit.equals("ms") ? max.toMillis() : max.toSeconds();
      throw new ConfigurationException(
          name,
          v + unit + " is out of range; use a value from " + lo + " to " + hi + " (" + unit + ")");
    }
    return value;
  }
}
