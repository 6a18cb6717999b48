-- Lambda Outbox schema, PostgreSQL: where the ordered claim's walk of the aggregates stands, shared by every
-- poller. ${table_prefix} is the table-name prefix, as in V1.

-- One row per cursor. 'aggregate-walk': with Ordering aggregate, a claim walks the aggregates in key order
-- (aggregate_type, aggregate_id) from the last one the previous claim visited, whichever poller or container
-- made it, wrapping round to the first key, so every aggregate's head is reached within one round of claims
-- however many pollers share them and however often they start cold. A claim reads the row by its key and,
-- as its transaction's last statement, moves it to where it stopped (a claim that comes back where it
-- started does not write). No key (NULL): from the first key. A row deleted by hand is recreated by the
-- next claim that moves it; until then claims walk from the first key.
CREATE TABLE ${table_prefix}outbox_claim_cursors (
    cursor_name     varchar(64)  NOT NULL,
    aggregate_type  varchar(255) NULL,      -- the last aggregate visited, or none (the first key next)
    aggregate_id    varchar(255) NULL,
    moved_at        timestamptz  NOT NULL,  -- when a claim last moved it
    CONSTRAINT ${table_prefix}outbox_claim_cursors_pk PRIMARY KEY (cursor_name)
);

INSERT INTO ${table_prefix}outbox_claim_cursors (cursor_name, aggregate_type, aggregate_id, moved_at)
VALUES ('aggregate-walk', NULL, NULL, TIMESTAMPTZ '1970-01-01 00:00:00+00');
