package dev.lambdaoutbox.store.sql;

/**
 * A statement would have made a second row with the same primary or unique key. The message is the
 * database's own and names the key. On MySQL the transaction stays usable after it.
 */
public final class DuplicateKeyException extends StatementException {
  private static final long serialVersionUID = 1L;

  public DuplicateKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
