-- Idempotency keys outlive their outbox row: OutboxWriter.append writes the key here in the event's own
-- transaction, and the key stays taken until the poller's retention pass deletes it, once it is older than
-- the idempotency window (OUTBOX_IDEMPOTENCY_WINDOW_HOURS). The primary key is what refuses a second use,
-- also between writers racing each other.
CREATE TABLE ${table_prefix}outbox_idempotency_keys (
    idempotency_key   varchar(255)  NOT NULL,
    event_id          uuid          NOT NULL,  -- the first event appended with the key
    first_seen_at     timestamptz   NOT NULL,
    CONSTRAINT ${table_prefix}outbox_idempotency_keys_pk PRIMARY KEY (idempotency_key)
);

-- Serves the purge of keys older than the window, oldest first, in bounded batches.
CREATE INDEX ${table_prefix}outbox_idempotency_keys_seen_ix
    ON ${table_prefix}outbox_idempotency_keys (first_seen_at);

-- Existing installs: the keys of rows still in the outbox (pending, or retained as sent) are held from
-- the time their row was written.
INSERT INTO ${table_prefix}outbox_idempotency_keys (idempotency_key, event_id, first_seen_at)
    SELECT idempotency_key, id, created_at
    FROM ${table_prefix}outbox_messages
    WHERE idempotency_key IS NOT NULL;
