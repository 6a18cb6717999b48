-- The audit tells the name a request claimed from the identity its invocation carried, so that an entry can be
-- matched with the CloudTrail record of who invoked the reprocessor (request_id is the Lambda request id):
--   claimed_by: the request body's requestedBy, as sent (anyone who may invoke the function can write any name);
--   invoked_by: the identity Lambda passed with the invocation (a Cognito identity, a client context), if any.
-- requested_by stays whom the entry holds responsible: invoked_by when there is one, else claimed_by. Entries
-- written before this migration have neither.
ALTER TABLE ${table_prefix}outbox_dead_letter_audit
    ADD COLUMN claimed_by varchar(255) NULL,
    ADD COLUMN invoked_by varchar(512) NULL;
