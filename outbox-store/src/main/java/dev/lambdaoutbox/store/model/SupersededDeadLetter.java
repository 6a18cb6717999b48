package dev.lambdaoutbox.store.model;

import java.time.Instant;
import java.util.UUID;

/**
 * A dead letter replaced by a newer one with the same event id (an id the application reused). The
 * older one was written whole to the audit table, action {@code SUPERSEDED}, in the same
 * transaction; nothing is overwritten without a trace.
 *
 * @param previousDeadAt when the older dead letter died
 * @param deadAt when the newer one did
 */
public record SupersededDeadLetter(UUID id, Instant previousDeadAt, Instant deadAt) {}
