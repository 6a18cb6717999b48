package dev.lambdaoutbox.reprocessor;

/**
 * A replay or discard failed part-way, e.g. the database went away. The message is the JSON error
 * the caller sees as the Lambda's {@code errorMessage}: what failed, and under {@code committed}
 * the report of the batches that had already committed (the failing batch was rolled back whole),
 * so the operator knows exactly what was done before sending the request again.
 */
public final class ActionFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ActionFailedException(String json, Throwable cause) {
    super(json, cause);
  }
}
