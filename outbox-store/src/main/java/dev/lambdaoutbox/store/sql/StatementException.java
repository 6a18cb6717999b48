package dev.lambdaoutbox.store.sql;

/**
 * The database refused a statement. The executor turns it into an {@link
 * dev.lambdaoutbox.store.model.OutboxStoreException} when it leaves the transaction's work; the
 * cause is the carrier's own exception (a {@link java.sql.SQLException} over JDBC).
 */
public class StatementException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StatementException(String message, Throwable cause) {
    super(message, cause);
  }
}
