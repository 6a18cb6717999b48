-- The audit's details become jsonb, so that they can be queried as JSON without a cast, e.g.
--   SELECT details -> 'deadLetter' ->> 'payload' FROM ${table_prefix}outbox_dead_letter_audit WHERE ...
-- The functions have only ever written JSON here; a row that is not JSON fails this migration (which
-- then changes nothing), naming the value: correct or delete that row and migrate again.
ALTER TABLE ${table_prefix}outbox_dead_letter_audit
    ALTER COLUMN details TYPE jsonb USING details::jsonb;
