package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxException;

/** An event was refused before anything was written. {@link #field()} names the offending field. */
public final class InvalidOutboxEventException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public InvalidOutboxEventException(String field, String problem) {
    super(field + ": " + problem);
    this.field = field;
  }

  public InvalidOutboxEventException(String field, String problem, Throwable cause) {
    super(field + ": " + problem, cause);
    this.field = field;
  }

  /**
   * The name of the field that was refused, e.g. {@code payload} or {@code headers.traceparent}.
   */
  public String field() {
    return field;
  }
}
