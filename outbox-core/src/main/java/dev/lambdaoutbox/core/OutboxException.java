package dev.lambdaoutbox.core;

/**
 * Root of the exceptions this library throws. Subclasses name the failures a caller may act on; a
 * plain {@code OutboxException} wraps an unexpected cause (usually a {@link java.sql.SQLException})
 * with context.
 */
public class OutboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OutboxException(String message) {
    super(message);
  }

  public OutboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
