package dev.lambdaoutbox.store.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One environment variable a function reads, declared once: its name, type, default, the values it
 * accepts, what it means, and the template parameter that sets it. The functions validate their
 * environment against these declarations at start-up ({@link EnvironmentReader}); the configuration
 * reference (docs/configuration.md) is generated from them, and the tests check template.yaml
 * against them. The tables: {@link DatabaseVariables}, {@link SharedVariables}, and each function's
 * own.
 */
public final class Setting {
  /** What kind of value the variable holds. */
  public enum Type {
    /** A whole number, e.g. a count. */
    INTEGER(""),
    /** A duration in whole milliseconds ({@code ..._MS}). */
    MILLISECONDS("ms"),
    /** A duration in whole seconds ({@code ..._SECONDS}). */
    SECONDS("s"),
    /** A duration in whole hours ({@code ..._HOURS}). */
    HOURS("h"),
    /** One of a fixed list of words ({@link #choices()}). */
    CHOICE(""),
    /** Text the function's configuration checks itself ({@link #format()} says what it takes). */
    TEXT("");

    private final String unit;

    Type(String unit) {
      this.unit = unit;
    }

    /** The unit the value is written in: {@code ms}, {@code s}, {@code h}, or empty. */
    public String unit() {
      return unit;
    }

    /** Whether the value is a whole number with bounds. */
    public boolean numeric() {
      return this != CHOICE && this != TEXT;
    }
  }

  private final String name;
  private final Type type;
  private final String defaultValue;
  private final long min;
  private final long max;
  private final List<String> choices;
  private final boolean ignoreCase;
  private final String format;
  private final String refusal;
  private final String meaning;
  private final String parameter;

  private Setting(
      String name,
      Type type,
      String defaultValue,
      long min,
      long max,
      List<String> choices,
      boolean ignoreCase,
      String format,
      String refusal,
      String meaning,
      String parameter) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = Objects.requireNonNull(type, "type");
    this.defaultValue = defaultValue;
    this.min = min;
    this.max = max;
    this.choices = List.copyOf(choices);
    this.ignoreCase = ignoreCase;
    this.format = format;
    this.refusal = refusal;
    this.meaning = meaning;
    this.parameter = parameter;
  }

  /** A whole number from {@code min} to {@code max} (in {@code type}'s unit). */
  public static Setting number(String name, Type type, long defaultValue, long min, long max) {
    if (!type.numeric()) {
      throw new IllegalArgumentException(name + ": " + type + " is not a numeric type");
    }
    if (defaultValue < min || defaultValue > max) {
      throw new IllegalArgumentException(name + ": default " + defaultValue + " out of bounds");
    }
    return new Setting(
        name,
        type,
        Long.toString(defaultValue),
        min,
        max,
        List.of(),
        false,
        null,
        null,
        null,
        null);
  }

  /**
   * One of {@code choices}, exactly as written unless {@link #ignoringCase()}; {@code refusal}
   * follows the rejected value in the error, e.g. {@code is not a log level; use DEBUG, INFO, WARN
   * or ERROR}.
   */
  public static Setting choice(
      String name, String defaultValue, List<String> choices, String refusal) {
    if (!choices.contains(defaultValue)) {
      throw new IllegalArgumentException(name + ": default " + defaultValue + " not a choice");
    }
    return new Setting(
        name, Type.CHOICE, defaultValue, 0, 0, choices, false, null, refusal, null, null);
  }

  /**
   * Text the configuration checks itself, described by {@code format} (e.g. {@code an SNS topic ARN
   * or SQS queue URL}); {@code defaultValue} null when unset means nothing (optional or required).
   */
  public static Setting text(String name, String defaultValue, String format) {
    return new Setting(
        name, Type.TEXT, defaultValue, 0, 0, List.of(), false, format, null, null, null);
  }

  /** This setting, meaning {@code meaning} (Markdown, as the configuration reference shows it). */
  public Setting meaning(String meaning) {
    return new Setting(
        name,
        type,
        defaultValue,
        min,
        max,
        choices,
        ignoreCase,
        format,
        refusal,
        meaning,
        parameter);
  }

  /** This setting, set by the template parameter {@code parameter}. */
  public Setting parameter(String parameter) {
    return new Setting(
        name,
        type,
        defaultValue,
        min,
        max,
        choices,
        ignoreCase,
        format,
        refusal,
        meaning,
        parameter);
  }

  /** This choice, accepting its words in any case ({@code Aggregate} for {@code aggregate}). */
  public Setting ignoringCase() {
    return new Setting(
        name, type, defaultValue, min, max, choices, true, format, refusal, meaning, parameter);
  }

  /** This setting with another default, e.g. a function's own service name. */
  public Setting withDefault(String defaultValue) {
    return new Setting(
        name,
        type,
        defaultValue,
        min,
        max,
        choices,
        ignoreCase,
        format,
        refusal,
        meaning,
        parameter);
  }

  /** The environment variable, e.g. {@code OUTBOX_BATCH_SIZE}. */
  public String name() {
    return name;
  }

  public Type type() {
    return type;
  }

  /** The value an unset variable stands for, as it would be written; null when there is none. */
  public String defaultValue() {
    return defaultValue;
  }

  /** The least value accepted, in the type's unit (numeric types only). */
  public long min() {
    return min;
  }

  /** The greatest value accepted, in the type's unit (numeric types only). */
  public long max() {
    return max;
  }

  /** The accepted words of a {@link Type#CHOICE}; empty for other types. */
  public List<String> choices() {
    return choices;
  }

  /** What a {@link Type#TEXT} takes, in words; null for other types. */
  public String format() {
    return format;
  }

  /** What it is for, in Markdown; null when not yet described. */
  public String meaning() {
    return meaning;
  }

  /** The template parameter that sets it; null when the template sets it from no parameter. */
  public String parameter() {
    return parameter;
  }

  /**
   * The choice {@code value} names (in any case if so declared); refused naming the variable and
   * the value.
   */
  String choose(String value) {
    for (String choice : choices) {
      if (ignoreCase
          ? choice.toLowerCase(Locale.ROOT).equals(value.toLowerCase(Locale.ROOT))
          : choice.equals(value)) {
        return choice;
      }
    }
    throw new ConfigurationException(name, "'" + value + "' " + refusal);
  }

  /** The refusal of a {@link Type#CHOICE}: what the error says after the rejected value. */
  public String refusal() {
    return refusal;
  }

  @Override
  public String toString() {
    return name;
  }
}
