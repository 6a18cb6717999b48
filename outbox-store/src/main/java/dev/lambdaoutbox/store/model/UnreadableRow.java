package dev.lambdaoutbox.store.model;

import java.util.UUID;

/**
 * A claimed row the poller could not read, so could never publish: already moved to the dead-letter
 * table by the claim's own transaction, with error code {@link #ERROR_CODE}, every column copied by
 * the database as it was stored. The claim goes on with the other rows.
 *
 * @param rawId the row's id column as stored
 * @param deadLetterId the dead letter's id: the row's own, or a fresh UUIDv7 when {@code rawId} is
 *     not a UUID (the raw id is then in the reason)
 * @param column the column found unreadable, e.g. {@code headers}
 * @param reason the dead letter's error reason: the column and what is wrong with it
 */
public record UnreadableRow(String rawId, UUID deadLetterId, String column, String reason) {
  /** The dead letters' error code for rows that could not be read. */
  public static final String ERROR_CODE = "UNREADABLE_ROW";
}
