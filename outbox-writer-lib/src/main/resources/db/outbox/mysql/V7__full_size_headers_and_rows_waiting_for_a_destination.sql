-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: headers at their full size, and the rows
-- waiting for a destination that is down. ${table_prefix} is the table-name prefix, as in V1.

-- Headers hold what the writer accepts: up to 5 headers whose names and values fill the 256 KiB of a message,
-- kept as a JSON object, where a quote, backslash, tab or line break takes two bytes: up to 512 KiB, more
-- than a text column's 64 KiB. MEDIUMTEXT holds 16 MiB. The outbox row also gets waiting_for: the
-- destination_key (outbox_destination_health) of the destination it waits for, set when the poller defers it
-- because that destination is down, cleared by a retry. With the index, how many rows wait for a
-- destination, and the oldest of them, are read without a scan, and an operator can move them. Changing the
-- column type copies each table (MariaDB 10.11 allows no other way), blocking writes to it while it runs:
-- 6 s for an outbox of 100,000 rows of half a kilobyte, measured on a busy two-core machine.
ALTER TABLE ${table_prefix}outbox_messages
    MODIFY headers mediumtext NULL,
    ADD COLUMN waiting_for char(64) CHARACTER SET ascii NULL,
    ADD INDEX ${table_prefix}outbox_messages_waiting_ix (waiting_for, status, created_at);

ALTER TABLE ${table_prefix}outbox_dead_letters
    MODIFY headers mediumtext NULL;
