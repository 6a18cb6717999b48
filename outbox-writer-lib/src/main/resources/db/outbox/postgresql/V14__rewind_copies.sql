-- Lambda Outbox schema, PostgreSQL: copies of delivered events that a rewind sends again (the reprocessor's
-- rewind, back-filling a new subscriber). ${table_prefix} is the table-name prefix, as in V1.

-- A copy is a new outbox row (its own id: the original, retained as SENT, may still hold the event's id) that
-- the poller publishes like any other, under the original event id:
--   rewind_of: the event id of the original row; the message's eventId (and a FIFO destination's
--              de-duplication id, a CloudEvent's id) is this one when it is set;
--   rewind_id: the rewind that made the copy, as its audit rows and reports name it.
-- Adding NULL columns rewrites nothing. The unique index, partial, holds copies only: one copy of an event per
-- rewind, however often a step of the rewind is sent again; rows the application writes cost it nothing.
ALTER TABLE ${table_prefix}outbox_messages
    ADD COLUMN rewind_of uuid NULL,
    ADD COLUMN rewind_id uuid NULL;

CREATE UNIQUE INDEX ${table_prefix}outbox_messages_rewind_uq
    ON ${table_prefix}outbox_messages (rewind_id, rewind_of)
    WHERE rewind_id IS NOT NULL;
