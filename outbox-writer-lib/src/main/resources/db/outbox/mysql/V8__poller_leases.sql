-- Lambda Outbox schema, MySQL 8 / Aurora MySQL 3 / MariaDB 10.6+: short leases the pollers share. All times
-- are UTC. ${table_prefix} is the table-name prefix, as in V1.

-- One row per lease, each held by at most one invocation until held_until. 'wake-linger': the woken run that
-- lingers for the commits that follow; a run woken while another holds it publishes what is due once and
-- stops instead of lingering too. A lease decides only who lingers, never whether a row is published: every
-- woken run claims once whatever it finds here. Renewed about once a second while held; a crashed holder's
-- lease runs out within seconds.
CREATE TABLE ${table_prefix}outbox_poller_leases (
    lease_name  varchar(64) CHARACTER SET ascii NOT NULL,
    held_by     varchar(128) NULL,      -- the invocation holding it (as locked_by), or none
    held_until  datetime(6)  NOT NULL,  -- free from then on
    CONSTRAINT ${table_prefix}outbox_poller_leases_pk PRIMARY KEY (lease_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO ${table_prefix}outbox_poller_leases (lease_name, held_by, held_until)
VALUES ('wake-linger', NULL, '1970-01-01 00:00:00');
