-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: an index of the aggregates that have
-- pending events, for the ordered claim's walk (OUTBOX_ORDERING=aggregate). ${table_prefix} is the table-name
-- prefix, as in V1.

-- The key index of V5 (aggregate_type, aggregate_id, status, seq) holds every row, sent (retained) ones too,
-- as MySQL has no partial index; a walk of the aggregates along it steps over every aggregate that has only
-- sent rows left. This one leads with status, so its PENDING part is the pending rows alone, in key order:
-- the walk reads there, and every aggregate it reaches has a pending head (its first entry). The key index
-- stays: it serves the claim's "has this row's aggregate an earlier unpublished row?" and the release of a
-- parked aggregate. InnoDB adds a secondary index in place, without blocking writes to the table.
ALTER TABLE ${table_prefix}outbox_messages
    ADD INDEX ${table_prefix}outbox_messages_status_key_ix (status, aggregate_type, aggregate_id, seq);
