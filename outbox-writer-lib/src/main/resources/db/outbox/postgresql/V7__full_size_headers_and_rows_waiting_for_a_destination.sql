-- Lambda Outbox schema, PostgreSQL: the rows waiting for a destination that is down (headers already hold
-- their full size here: text has no limit a message reaches). ${table_prefix} is the table-name prefix, as
-- in V1.

-- waiting_for: the destination_key (outbox_destination_health) of the destination the row waits for, set
-- when the poller defers it because that destination is down, cleared by a retry. Adding the column rewrites
-- nothing. The index, partial, holds only rows that wait: how many wait for a destination, and the oldest of
-- them, are read without a scan, and an operator can move them. It blocks writes to the outbox while it
-- builds: seconds for a backlog of a million rows.
ALTER TABLE ${table_prefix}outbox_messages ADD COLUMN waiting_for char(64) NULL;

CREATE INDEX ${table_prefix}outbox_messages_waiting_ix
    ON ${table_prefix}outbox_messages (waiting_for, created_at)
    WHERE status = 'PENDING' AND waiting_for IS NOT NULL;
