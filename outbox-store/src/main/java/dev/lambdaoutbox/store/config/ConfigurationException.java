package dev.lambdaoutbox.store.config;

/**
 * A configuration variable is missing or holds a value that cannot work. The message names the
 * variable and the rejected value, and says what would be accepted, so an operator can fix the
 * deployment without reading code.
 */
public final class ConfigurationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String variable;

  public ConfigurationException(String variable, String problem) {
    super(variable + ": " + problem);
    this.variable = variable;
  }

  public ConfigurationException(String variable, String problem, Throwable cause) {
    super(variable + ": " + problem, cause);
    this.variable = variable;
  }

  /** The environment variable at fault, e.g. {@code OUTBOX_BATCH_SIZE}. */
  public String variable() {
    return variable;
  }
}
