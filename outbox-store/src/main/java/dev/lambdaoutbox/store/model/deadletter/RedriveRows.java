package dev.lambdaoutbox.store.model.deadletter;

/**
 * Where a failure group's re-drive stands, each count up to {@link DeadLetter#COUNT_CAP} + 1.
 *
 * @param remaining the group's dead letters not replayed yet
 * @param scheduled its replayed rows waiting in the outbox for their paced due time (or retrying)
 * @param held its replayed rows a stop holds
 */
public record RedriveRows(long remaining, long scheduled, long held) {}
