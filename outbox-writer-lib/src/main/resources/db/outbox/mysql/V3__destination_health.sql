-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: destination health and the
-- oldest-unpublished index. All times are UTC. ${table_prefix} is the table-name prefix, as in V1.

-- Destinations the poller found down (UNAVAILABLE: unreachable, timing out, failing or throttling) or
-- refusing every message (MISCONFIGURED: no such topic or queue, no permission, a KMS key that cannot be
-- used), shared by every poller. A healthy destination has no row. While a destination has one, its rows
-- are not attempted and spend no retries; one poller at a time probes it with one small batch when
-- next_probe_at comes, and a probe that goes through deletes the row. Small: read whole once per claim.
-- The key is the destination's SHA-256: InnoDB cannot make a varchar(2048) the primary key.
CREATE TABLE ${table_prefix}outbox_destination_health (
    destination_key   char(64) CHARACTER SET ascii NOT NULL,  -- SHA-256 of destination, lower-case hex
    destination       varchar(2048) NOT NULL,  -- SNS topic ARN or SQS queue URL
    state             varchar(16) CHARACTER SET ascii NOT NULL,  -- UNAVAILABLE or MISCONFIGURED
    error_code        varchar(128)  NOT NULL,  -- the failure that marked it down, or of the last probe
    error_reason      text          NULL,
    down_since        datetime(6)   NOT NULL,
    failed_probes     int           NOT NULL DEFAULT 0,  -- consecutive probes that failed
    next_probe_at     datetime(6)   NOT NULL,  -- rows routed here wait until then
    updated_at        datetime(6)   NOT NULL,
    CONSTRAINT ${table_prefix}outbox_destination_health_pk PRIMARY KEY (destination_key),
    CONSTRAINT ${table_prefix}outbox_destination_health_state_ck
        CHECK (state IN ('UNAVAILABLE', 'MISCONFIGURED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The age of the oldest unpublished row whatever it waits for (due, backing off, deferred, leased), for the
-- OldestUnpublishedAgeSeconds metric: MIN(created_at) of the PENDING rows is read from one index entry.
-- InnoDB builds it online: writes to the table go on meanwhile.
CREATE INDEX ${table_prefix}outbox_messages_unpublished_ix
    ON ${table_prefix}outbox_messages (status, created_at);
