package dev.lambdaoutbox.store.model.deadletter;

import java.time.Instant;
import java.util.UUID;

/**
 * An aggregate parked behind a dead letter (with {@code OUTBOX_ORDERING=aggregate}): its events
 * stay in the outbox, unpublished, until the dead letter is replayed (it goes back at the head of
 * the aggregate) or discarded.
 *
 * @param deadLetterId the parked aggregate's head, now a dead letter
 * @param parkedEvents events that were behind the head when it was dead-lettered
 * @param waitingEvents events of the aggregate in the outbox now, those written since included:
 *     what a replay or discard releases
 */
public record ParkedKey(
    String aggregateType,
    String aggregateId,
    UUID deadLetterId,
    long headSeq,
    int parkedEvents,
    Instant parkedAt,
    long waitingEvents) {}
