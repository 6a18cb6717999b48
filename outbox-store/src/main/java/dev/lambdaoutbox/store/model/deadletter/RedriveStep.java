package dev.lambdaoutbox.store.model.deadletter;

import java.time.Instant;

/**
 * What one step of a failure group's re-drive did: held rows it gave due times again, dead letters
 * it replayed at the pace, and where the pace ends.
 *
 * @param resumed held rows given a paced due time again
 * @param replayed the replay of the group's dead letters, each with a paced due time
 * @param lastDue the last due time this step gave; null when it gave none
 * @param more whether the group had dead letters left when the step reached its limit
 */
public record RedriveStep(
    int resumed, DeadLetterActionResult replayed, Instant lastDue, boolean more) {}
