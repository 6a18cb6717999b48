package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.FailureClassifier;
import dev.lambdaoutbox.store.model.UnreadableRow;
import java.util.Set;

/**
 * The error codes a dead letter is found by, as the poller records them: its own ({@code
 * NO_DESTINATION}, ...), the claim's {@code UNREADABLE_ROW}, and the broker's codes for a message
 * it refuses at first sight. A page that filters dead letters by another code shows a filter that
 * matches nothing the poller writes.
 */
public final class DeadLetterCodes {
  private static final Set<String> OWN =
      Set.of(
          Codes.NO_DESTINATION,
          Codes.INVALID_DESTINATION,
          Codes.MESSAGE_TOO_LARGE,
          UnreadableRow.ERROR_CODE);

  private DeadLetterCodes() {}

  public static boolean recordedByThePoller(String code) {
    return OWN.contains(code) || FailureClassifier.isMessageLevel(code);
  }
}
