-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: per-aggregate ordering
-- (OUTBOX_ORDERING=aggregate). All times are UTC. ${table_prefix} is the table-name prefix, as in V1.

-- The order of one aggregate's events: a per-table sequence taken when the row is inserted. Within one
-- aggregate it is the commit order wherever the application serialises its writes to that aggregate (as a
-- domain model does: the aggregate's own row is updated, and so locked, in the same transaction). Adding it
-- numbers the rows already there. The second index serves the ordered claim's question "has this row's
-- aggregate an earlier unpublished row?" (one index dive per candidate) and the release of a parked aggregate.
ALTER TABLE ${table_prefix}outbox_messages
    ADD COLUMN seq bigint NOT NULL AUTO_INCREMENT,
    ADD CONSTRAINT ${table_prefix}outbox_messages_seq_uq UNIQUE (seq),
    ADD INDEX ${table_prefix}outbox_messages_key_ix (aggregate_type, aggregate_id, status, seq);

-- Aggregates parked behind a dead letter: with ordering on, an aggregate whose oldest unpublished event is
-- dead-lettered publishes nothing more (events written later included) until an operator replays or
-- discards that dead letter. One row per parked aggregate, written in the transaction that dead-letters the
-- head; the ordered claim skips every aggregate listed here.
CREATE TABLE ${table_prefix}outbox_parked_keys (
    aggregate_type    varchar(255)  NOT NULL,
    aggregate_id      varchar(255)  NOT NULL,
    dead_letter_id    char(36) CHARACTER SET ascii NOT NULL,  -- the head, now a dead letter
    head_seq          bigint        NOT NULL,  -- its seq: a replay puts it back at the head
    parked_events     int           NOT NULL,  -- events behind it when it parked
    parked_at         datetime(6)   NOT NULL,
    CONSTRAINT ${table_prefix}outbox_parked_keys_pk PRIMARY KEY (aggregate_type, aggregate_id),
    CONSTRAINT ${table_prefix}outbox_parked_keys_dl_uq UNIQUE (dead_letter_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
