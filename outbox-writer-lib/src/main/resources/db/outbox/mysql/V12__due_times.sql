-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: events due at a time (OutboxEvent.Builder
-- notBefore and delay). ${table_prefix} is the table-name prefix, as in V1.

-- not_before: the time before which the row is not published, on the database's clock (UTC): when it was
-- written, or later when the event asked to wait. next_attempt_at starts there and moves with leases and
-- backoff; not_before stays, so that the age of the oldest unpublished row (OldestUnpublishedAgeSeconds)
-- counts from the time a row may go, never from the creation of a row that waits for its time, backing off
-- or not. The rows already there wait for nothing: theirs is their creation time. Setting it writes every
-- row once; the outbox holds the rows not yet published (and retained ones). Rows written by SQL of your own
-- take the database's time, as created_at does (V11).
ALTER TABLE ${table_prefix}outbox_messages ADD COLUMN not_before datetime(6) NULL;

UPDATE ${table_prefix}outbox_messages SET not_before = created_at;

ALTER TABLE ${table_prefix}outbox_messages
    MODIFY COLUMN not_before datetime(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6));

-- The unpublished index of V3 now serves the age metric from not_before: MIN(not_before) of the PENDING rows
-- is one index entry, and the rows waiting for their time are the last PENDING entries, read in due order by
-- the reprocessor's list. InnoDB builds it online: writes to the table go on meanwhile.
ALTER TABLE ${table_prefix}outbox_messages DROP INDEX ${table_prefix}outbox_messages_unpublished_ix;

CREATE INDEX ${table_prefix}outbox_messages_unpublished_ix
    ON ${table_prefix}outbox_messages (status, not_before);
