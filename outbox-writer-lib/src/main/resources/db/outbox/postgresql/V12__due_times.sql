-- Lambda Outbox schema, PostgreSQL: events due at a time (OutboxEvent.Builder notBefore and delay).
-- ${table_prefix} is the table-name prefix, as in V1.

-- not_before: the time before which the row is not published, on the database's clock: when it was written,
-- or later when the event asked to wait. next_attempt_at starts there and moves with leases and backoff;
-- not_before stays, so that the age of the oldest unpublished row (OldestUnpublishedAgeSeconds) counts from
-- the time a row may go, never from the creation of a row that waits for its time, backing off or not. The
-- rows already there wait for nothing: theirs is their creation time. Setting it writes every row once; the
-- outbox holds the rows not yet published (and retained ones). Rows written by SQL of your own take the
-- database's time, as created_at does (V11).
ALTER TABLE ${table_prefix}outbox_messages ADD COLUMN not_before timestamptz NULL;

UPDATE ${table_prefix}outbox_messages SET not_before = created_at;

ALTER TABLE ${table_prefix}outbox_messages
    ALTER COLUMN not_before SET DEFAULT statement_timestamp(),
    ALTER COLUMN not_before SET NOT NULL;

-- The unpublished index of V3 now serves the age metric from not_before: MIN(not_before) of the PENDING rows
-- is its first entry, no table read, and the rows waiting for their time are its last entries, read in due
-- order by the reprocessor's list. It blocks writes to the outbox while it builds: seconds for a backlog of
-- a million rows.
DROP INDEX ${table_prefix}outbox_messages_unpublished_ix;

CREATE INDEX ${table_prefix}outbox_messages_unpublished_ix
    ON ${table_prefix}outbox_messages (not_before)
    WHERE status = 'PENDING';
