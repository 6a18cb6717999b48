-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+. All times are UTC.
-- ${table_prefix} is a placeholder for the table-name prefix (empty by default). OutboxSchema fills it in;
-- with Flyway, set flyway.placeholders.table_prefix; with Liquibase, a changelog property table_prefix.

-- Events waiting to be published. The poller claims due PENDING rows and deletes them once published
-- (or marks them SENT when a retention period is configured).
CREATE TABLE ${table_prefix}outbox_messages (
    id                char(36) CHARACTER SET ascii NOT NULL,
    aggregate_type    varchar(255)  NOT NULL,
    aggregate_id      varchar(255)  NOT NULL,
    event_type        varchar(255)  NOT NULL,
    payload           mediumtext    NOT NULL,  -- JSON, kept byte for byte as written
    headers           text          NULL,      -- JSON object of string headers (e.g. traceparent)
    destination       varchar(2048) NULL,      -- SNS topic ARN or SQS queue URL; overrides routing
    idempotency_key   varchar(255)  NULL,
    occurred_at       datetime(6)   NOT NULL,
    created_at        datetime(6)   NOT NULL,
    status            varchar(16) CHARACTER SET ascii NOT NULL DEFAULT 'PENDING',
    retry_count       int           NOT NULL DEFAULT 0,
    replay_count      int           NOT NULL DEFAULT 0,
    next_attempt_at   datetime(6)   NOT NULL,  -- due time: backoff, and the lease while claimed
    locked_by         varchar(128)  NULL,      -- the invocation holding the lease
    locked_until      datetime(6)   NULL,      -- when that lease runs out
    last_error_code   varchar(128)  NULL,
    last_error_reason text          NULL,
    first_failed_at   datetime(6)   NULL,
    sent_at           datetime(6)   NULL,
    CONSTRAINT ${table_prefix}outbox_messages_pk PRIMARY KEY (id),
    CONSTRAINT ${table_prefix}outbox_messages_status_ck CHECK (status IN ('PENDING', 'SENT')),
    CONSTRAINT ${table_prefix}outbox_messages_idem_uq UNIQUE (idempotency_key),
    -- Serves the claim query: due PENDING rows, oldest first; sent (retained) rows sort apart.
    INDEX ${table_prefix}outbox_messages_due_ix (status, next_attempt_at, id),
    -- Serves the retention purge of sent rows.
    INDEX ${table_prefix}outbox_messages_sent_ix (status, sent_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Rows that could not be published: a permanent error, or the retry limit reached.
CREATE TABLE ${table_prefix}outbox_dead_letters (
    id                char(36) CHARACTER SET ascii NOT NULL,
    aggregate_type    varchar(255)  NOT NULL,
    aggregate_id      varchar(255)  NOT NULL,
    event_type        varchar(255)  NOT NULL,
    payload           mediumtext    NOT NULL,
    headers           text          NULL,
    destination       varchar(2048) NULL,
    idempotency_key   varchar(255)  NULL,
    occurred_at       datetime(6)   NOT NULL,
    created_at        datetime(6)   NOT NULL,
    attempts          int           NOT NULL,
    replay_count      int           NOT NULL DEFAULT 0,
    error_code        varchar(128)  NOT NULL,
    error_reason      text          NULL,
    first_failed_at   datetime(6)   NOT NULL,
    last_failed_at    datetime(6)   NOT NULL,
    dead_at           datetime(6)   NOT NULL,
    CONSTRAINT ${table_prefix}outbox_dead_letters_pk PRIMARY KEY (id),
    INDEX ${table_prefix}outbox_dead_letters_dead_at_ix (dead_at, id),
    INDEX ${table_prefix}outbox_dead_letters_aggregate_ix (aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- What operators did to dead letters: one row per dead letter per action, with a snapshot of the row.
CREATE TABLE ${table_prefix}outbox_dead_letter_audit (
    audit_id          bigint        NOT NULL AUTO_INCREMENT,
    action            varchar(32)   NOT NULL,  -- REPLAY, DISCARD
    dead_letter_id    char(36) CHARACTER SET ascii NOT NULL,
    request_id        varchar(128)  NOT NULL,  -- groups the rows of one operator request
    requested_by      varchar(255)  NOT NULL,
    reason            text          NULL,
    details           mediumtext    NULL,      -- JSON: the dead letter as it was, destination override, ...
    created_at        datetime(6)   NOT NULL,
    CONSTRAINT ${table_prefix}outbox_dead_letter_audit_pk PRIMARY KEY (audit_id),
    INDEX ${table_prefix}outbox_dead_letter_audit_dl_ix (dead_letter_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Consumer-side de-duplication: a message id processed once per consumer.
CREATE TABLE ${table_prefix}inbox_processed_messages (
    consumer_name     varchar(255)  NOT NULL,
    message_id        varchar(255)  NOT NULL,
    processed_at      datetime(6)   NOT NULL,
    CONSTRAINT ${table_prefix}inbox_processed_messages_pk PRIMARY KEY (consumer_name, message_id),
    INDEX ${table_prefix}inbox_processed_messages_at_ix (processed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
