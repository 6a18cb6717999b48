-- The audit's details become JSON (MySQL's JSON type; in MariaDB an alias of longtext checked by
-- json_valid), so that they can be queried with the JSON functions, e.g.
--   SELECT JSON_UNQUOTE(JSON_EXTRACT(details, '$.deadLetter.payload')) FROM ${table_prefix}outbox_dead_letter_audit WHERE ...
-- The functions have only ever written JSON here; a row that is not JSON fails this migration: correct or
-- delete that row and migrate again.
ALTER TABLE ${table_prefix}outbox_dead_letter_audit
    MODIFY details JSON NULL;
