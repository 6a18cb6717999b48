-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: the database's clock as the default of the
-- times that decide when an event is due and how old it is, for rows written with SQL of your own.
-- OutboxWriter writes the same value, UTC_TIMESTAMP(6): UTC whatever the session's time zone (the columns
-- hold UTC; CURRENT_TIMESTAMP would be the session's zone), to the microsecond. ${table_prefix} is the
-- table-name prefix, as in V1. MariaDB changes only the definition; MySQL may rebuild the table for an
-- expression default, and the outbox table holds only the rows not yet published (and retained ones).
ALTER TABLE ${table_prefix}outbox_messages
    ALTER COLUMN occurred_at SET DEFAULT (UTC_TIMESTAMP(6)),
    ALTER COLUMN created_at SET DEFAULT (UTC_TIMESTAMP(6)),
    ALTER COLUMN next_attempt_at SET DEFAULT (UTC_TIMESTAMP(6));

ALTER TABLE ${table_prefix}outbox_idempotency_keys
    ALTER COLUMN first_seen_at SET DEFAULT (UTC_TIMESTAMP(6));
