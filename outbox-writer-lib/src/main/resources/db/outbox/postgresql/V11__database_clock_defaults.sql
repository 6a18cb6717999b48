-- Lambda Outbox schema, PostgreSQL: the database's clock as the default of the times that decide when an
-- event is due and how old it is, for rows written with SQL of your own. OutboxWriter writes the same
-- value, statement_timestamp(): the statement's start (now() would be the transaction's, dating an event
-- from the start of a long transaction), and the poller compares it with the same clock, so no host's
-- clock decides. ${table_prefix} is the table-name prefix, as in V1. Changing a default touches no row.
ALTER TABLE ${table_prefix}outbox_messages
    ALTER COLUMN occurred_at SET DEFAULT statement_timestamp(),
    ALTER COLUMN created_at SET DEFAULT statement_timestamp(),
    ALTER COLUMN next_attempt_at SET DEFAULT statement_timestamp();

ALTER TABLE ${table_prefix}outbox_idempotency_keys
    ALTER COLUMN first_seen_at SET DEFAULT statement_timestamp();
