package dev.lambdaoutbox.store.internal.rows;

import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.ErrorText;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.model.deadletter.FailureFingerprint;
import java.util.UUID;

/**
 * One outbox row to move to the dead-letter table, copied by the database so every column keeps its
 * stored text.
 *
 * @param rowId the outbox row's id as stored (for an unreadable row, maybe not a UUID at all)
 * @param deadLetterId the dead letter's id
 * @param attempted whether this move follows a publish attempt (the dead letter's attempts are the
 *     row's retry count plus one) or not (an unreadable row: its retry count)
 */
public record DeadLetterMove(
    String rowId, UUID deadLetterId, boolean attempted, String code, String reason) {

  /** The reason as its failure group knows it ({@link FailureFingerprint#mask}). */
  public String maskedReason() {
    return FailureFingerprint.mask(reason);
  }

  public static DeadLetterMove of(DeliveryOutcome.DeadLetter d) {
    return new DeadLetterMove(
        d.id().toString(),
        d.id(),
        true,
        ErrorText.requiredCode(d.errorCode()),
        ErrorText.reason(d.reason()));
  }

  public static DeadLetterMove of(UnreadableRow row) {
    return new DeadLetterMove(
        row.rawId(),
        row.deadLetterId(),
        false,
        UnreadableRow.ERROR_CODE,
        ErrorText.reason(row.reason()));
  }

  /** 1 when attempted, else 0: what the row's retry count is raised by. */
  public int tries() {
    return attempted ? 1 : 0;
  }
}
