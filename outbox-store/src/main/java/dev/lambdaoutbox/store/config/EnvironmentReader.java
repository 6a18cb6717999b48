package dev.lambdaoutbox.store.config;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads declared {@link Setting}s from an environment map (normally {@code System.getenv()}, read
 * once at start-up): each value typed, defaulted and checked against its declaration. Every refusal
 * is a {@link ConfigurationException} naming the variable and the value. Only declared variables
 * can be read.
 */
public final class EnvironmentReader {
  private final Map<String, String> env;

  public EnvironmentReader(Map<String, String> env) {
    this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
  }

  /** The trimmed value, or empty when unset or blank (the default is not applied). */
  public Optional<String> optional(Setting setting) {
    String value = env.get(setting.name());
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
  }

  /** The value; refused when unset, saying to set it to {@code whatItIs}. */
  public String required(Setting setting, String whatItIs) {
    return optional(setting)
        .orElseThrow(
            () -> new ConfigurationException(setting.name(), "is not set; set it to " + whatItIs));
  }

  /** The value, or the declared default (empty text when there is none). */
  public String text(Setting setting) {
    return optional(setting).orElse(setting.defaultValue() == null ? "" : setting.defaultValue());
  }

  /**
   * The value, or its default, refused when {@code problem} finds something wrong with it (it
   * returns null for a good value, else what is wrong, e.g. "starts with AWS/, ...").
   */
  public String text(Setting setting, Function<String, String> problem) {
    String value = text(setting);
    String wrong = problem.apply(value);
    if (wrong != null) {
      throw new ConfigurationException(setting.name(), "'" + value + "' " + wrong);
    }
    return value;
  }

  /** One of a {@link Setting.Type#CHOICE}'s words, as declared; its default when unset. */
  public String choice(Setting setting) {
    require(setting, Setting.Type.CHOICE);
    return setting.choose(text(setting));
  }

  /** A {@link Setting.Type#INTEGER} within its bounds; its default when unset. */
  public int integer(Setting setting) {
    require(setting, Setting.Type.INTEGER);
    return boundedInt(setting);
  }

  /** A duration in milliseconds, seconds or hours, within its bounds; its default when unset. */
  public Duration duration(Setting setting) {
    return switch (setting.type()) {
      case HOURS -> Duration.ofHours(boundedInt(setting));
      case MILLISECONDS -> Duration.ofMillis(boundedLong(setting));
      case SECONDS -> Duration.ofSeconds(boundedLong(setting));
      default -> throw new IllegalArgumentException(setting.name() + " is not a duration setting");
    };
  }

  private int boundedInt(Setting setting) {
    String name = setting.name();
    String raw = text(setting);
    int value;
    try {
      value = Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      throw new ConfigurationException(name, "'" + raw + "' is not a whole number", e);
    }
    if (value < setting.min() || value > setting.max()) {
      throw new ConfigurationException(
          name,
          value + " is out of range; use a value from " + setting.min() + " to " + setting.max());
    }
    return value;
  }

  private long boundedLong(Setting setting) {
    String name = setting.name();
    String raw = text(setting);
    long value;
    try {
      value = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new ConfigurationException(name, "'" + raw + "' is not a whole number", e);
    }
    if (value < setting.min() || value > setting.max()) {
      String unit = setting.type().unit();
      throw new ConfigurationException(
          name,
          value
              + unit
              + " is out of range; use a value from "
              + setting.min()
              + " to "
              + setting.max()
              + " ("
              + unit
              + ")");
    }
    return value;
  }

  private static void require(Setting setting, Setting.Type type) {
    if (setting.type() != type) {
      throw new IllegalArgumentException(setting.name() + " is not a " + type + " setting");
    }
  }
}
