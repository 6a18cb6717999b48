package dev.lambdaoutbox.store.model;

import dev.lambdaoutbox.core.OutboxException;

/**
 * The outbox store could not do what was asked: the database refused the login, could not be
 * reached in time, or failed a statement. The message says which table and which step; the cause is
 * the driver's exception. Whatever the step had changed was rolled back.
 */
public class OutboxStoreException extends OutboxException {
  private static final long serialVersionUID = 1L;

  public OutboxStoreException(String message) {
    super(message);
  }

  public OutboxStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
