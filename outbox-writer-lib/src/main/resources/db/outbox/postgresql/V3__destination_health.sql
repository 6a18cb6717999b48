-- Lambda Outbox schema, PostgreSQL: destination health and the oldest-unpublished index.
-- ${table_prefix} is a placeholder for the table-name prefix (empty by default), as in V1.

-- Destinations the poller found down (UNAVAILABLE: unreachable, timing out, failing or throttling) or
-- refusing every message (MISCONFIGURED: no such topic or queue, no permission, a KMS key that cannot be
-- used), shared by every poller. A healthy destination has no row. While a destination has one, its rows
-- are not attempted and spend no retries; one poller at a time probes it with one small batch when
-- next_probe_at comes, and a probe that goes through deletes the row. Small: read whole once per claim.
CREATE TABLE ${table_prefix}outbox_destination_health (
    destination_key   char(64)      NOT NULL,  -- SHA-256 of destination, lower-case hex
    destination       varchar(2048) NOT NULL,  -- SNS topic ARN or SQS queue URL
    state             varchar(16)   NOT NULL,  -- UNAVAILABLE or MISCONFIGURED
    error_code        varchar(128)  NOT NULL,  -- the failure that marked it down, or of the last probe
    error_reason      text          NULL,
    down_since        timestamptz   NOT NULL,
    failed_probes     integer       NOT NULL DEFAULT 0,  -- consecutive probes that failed
    next_probe_at     timestamptz   NOT NULL,  -- rows routed here wait until then
    updated_at        timestamptz   NOT NULL,
    CONSTRAINT ${table_prefix}outbox_destination_health_pk PRIMARY KEY (destination_key),
    CONSTRAINT ${table_prefix}outbox_destination_health_state_ck
        CHECK (state IN ('UNAVAILABLE', 'MISCONFIGURED'))
);

-- The age of the oldest unpublished row whatever it waits for (due, backing off, deferred, leased), for the
-- OldestUnpublishedAgeSeconds metric: MIN(created_at) is the first entry of this index, no table read.
-- Partial, so sent (retained) rows cost nothing. It blocks writes to the outbox while it builds: seconds
-- for a backlog of a million rows.
CREATE INDEX ${table_prefix}outbox_messages_unpublished_ix
    ON ${table_prefix}outbox_messages (created_at)
    WHERE status = 'PENDING';
