package dev.lambdaoutbox.spring;

import dev.lambdaoutbox.writer.PollerWaker;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Wakes the poller when the transaction it is registered with commits; Spring calls {@link
 * #afterCommit} only then, never after a rollback. {@link PollerWaker#afterCommit()} only marks a
 * wake-up as wanted, so the commit's caller is never slowed or failed by it.
 */
record WakeUpAfterCommit(PollerWaker waker) implements TransactionSynchronization {
  @Override
  public void afterCommit() {
    waker.afterCommit();
  }
}
