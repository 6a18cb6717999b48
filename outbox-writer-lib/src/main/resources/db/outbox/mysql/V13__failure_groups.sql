-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: failure groups of the dead letters, and the
-- rows a group's re-drive put back. ${table_prefix} is the table-name prefix, as in V1.

-- A dead letter's fingerprint: md5 of its error code, its reason with ids, numbers, UUIDs, ARNs' accounts and
-- resources and quoted values masked (failure_reason_masked, cut to 500 characters), its event type and its
-- destination. The poller writes both when it moves a row here; rows dead-lettered before this migration
-- have NULL and get theirs from the reprocessor's bounded backfill (docs/operating.md). The index lets a
-- listing step from one group to the next, and count, date and sample one group, without reading the rest.
ALTER TABLE ${table_prefix}outbox_dead_letters
    ADD COLUMN failure_fingerprint   char(32) CHARACTER SET ascii NULL,
    ADD COLUMN failure_reason_masked varchar(500) NULL,
    ADD INDEX ${table_prefix}outbox_dead_letters_group_ix (failure_fingerprint, dead_at, id);

-- The failure group a re-drive put a row back from, NULL for every other row: a stop holds the group's rows
-- not yet published, a resume spaces them out again. MySQL has no partial index: every row has an entry,
-- NULL for all but re-driven ones (33 bytes and the key), the price of finding a group's rows by index.
ALTER TABLE ${table_prefix}outbox_messages
    ADD COLUMN redrive_group char(32) CHARACTER SET ascii NULL,
    ADD INDEX ${table_prefix}outbox_messages_redrive_ix (redrive_group, next_attempt_at, id);
