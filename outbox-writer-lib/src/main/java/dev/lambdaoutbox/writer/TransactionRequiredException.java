package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxException;

/**
 * The connection or handle was not inside a transaction (it was in auto-commit). Writing there
 * would commit the outbox row on its own, apart from the business change, which is exactly what an
 * outbox exists to prevent.
 */
public final class TransactionRequiredException extends OutboxException {
  private static final long serialVersionUID = 1L;

  public TransactionRequiredException(String what) {
    super(
        what
            + " is in auto-commit mode; begin a transaction first (connection.setAutoCommit(false), or"
            + " jdbi.useTransaction(handle -> ...)) so the outbox row commits or rolls back with your own"
            + " changes");
  }

  /**
   * For a caller whose transactions a framework manages (Spring's transaction synchronization):
   * {@code problem} and {@code remedy} say it in that framework's words.
   */
  public TransactionRequiredException(String problem, String remedy) {
    super(problem + "; " + remedy);
  }
}
