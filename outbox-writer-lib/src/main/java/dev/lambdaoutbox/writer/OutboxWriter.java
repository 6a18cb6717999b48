package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.sql.Connection;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import org.jdbi.v3.core.Handle;

/**
 * Appends events to the outbox inside the caller's open transaction. Build one, once, and share it:
 * it is thread-safe and holds no connection.
 *
 * <pre>{@code
 * OutboxWriter outbox = OutboxWriter.create();
 * jdbi.useTransaction(handle -> {
 *   handle.execute("INSERT INTO reservations ...");
 *   outbox.append(handle, event);   // commits or rolls back with the reservation
 * });
 * }</pre>
 *
 * <p>It never begins, commits or rolls back. It refuses, writing nothing and leaving the
 * transaction usable: auto-commit with a {@link TransactionRequiredException}, an event too large
 * for SNS/SQS ({@link MessageSize}) with an {@link InvalidOutboxEventException}, a taken
 * idempotency key with a {@link DuplicateIdempotencyKeyException}. The key table's primary key
 * decides between writers racing for a key (on PostgreSQL at REPEATABLE READ or above the later one
 * fails with a serialization error instead, to retry as any).
 */
public interface OutboxWriter {
  /** SNS and SQS refuse messages over 256 KiB; see {@link MessageSize} for what counts. */
  int DEFAULT_MAX_PAYLOAD_BYTES = MessageSize.MAX_BYTES;

  /**
   * The most {@link Builder#maxPayloadBytes} may raise the limit to, 16,777,215 bytes: what the
   * payload column holds on MariaDB and MySQL ({@code mediumtext}), for payloads the poller's claim
   * check carries through S3 ({@link MessageSize#MAX_STORED_PAYLOAD_BYTES}).
   */
  int MAX_CLAIM_CHECK_PAYLOAD_BYTES = MessageSize.MAX_STORED_PAYLOAD_BYTES;

  /** A writer for the default table names, detecting the SQL dialect from each connection. */
  static OutboxWriter create() {
    return builder().build();
  }

  static Builder builder() {
    return new Builder();
  }

  /** Appends one event in the handle's open transaction. */
  void append(Handle handle, OutboxEvent event);

  /** Appends one event in the connection's open transaction. */
  void append(Connection connection, OutboxEvent event);

  /** Appends events in the handle's open transaction: all of them, or, on any refusal, none. */
  void appendAll(Handle handle, List<OutboxEvent> events);

  /** Appends events in the connection's open transaction: all of them, or, on any refusal, none. */
  void appendAll(Connection connection, List<OutboxEvent> events);

  /** Configures an {@link OutboxWriter}. */
  final class Builder {
    OutboxTables tables = OutboxTables.defaults();
    SqlDialect dialect;
    int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    Clock clock;

    private Builder() {}

    /** Prefix for every outbox table name; validated as an SQL identifier. Default: none. */
    public Builder tablePrefix(String prefix) {
      this.tables = OutboxTables.withPrefix(prefix);
      return this;
    }

    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /** Fixes the dialect instead of detecting it from each connection's metadata. */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * Largest payload accepted, in UTF-8 bytes; the default is 262,144. Up to the default, an event
     * is refused when its message, the payload plus the message attributes, would be over the 256
     * KiB SNS and SQS accept ({@link MessageSize}). Above it, up to {@link
     * #MAX_CLAIM_CHECK_PAYLOAD_BYTES}, only when the poller has a claim-check bucket ({@code
     * OUTBOX_CLAIM_CHECK_BUCKET}): a message over its destination's limit then goes as a pointer to
     * an S3 object, and the event is refused only when its attributes leave no room for the
     * pointer. Without a bucket, the poller dead-letters such an event as {@code
     * MESSAGE_TOO_LARGE}.
     */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes <= 0 || maxPayloadBytes > MAX_CLAIM_CHECK_PAYLOAD_BYTES) {
        throw new IllegalArgumentException(
            "maxPayloadBytes: must be 1 to "
                + MAX_CLAIM_CHECK_PAYLOAD_BYTES
                + " (what the outbox's payload column holds on every database; above "
                + MessageSize.MAX_BYTES
                + " only with the poller's claim-check bucket), was "
                + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /**
     * A clock that stands in for the database's, for tests that write at chosen times (a timeline
     * on a hand-moved clock). Without one, which is what an application wants, each INSERT dates
     * its rows with the database's own clock ({@code created_at} and {@code next_attempt_at}, the
     * keys' {@code first_seen_at}): PostgreSQL's {@code statement_timestamp()}, MySQL's {@code
     * UTC_TIMESTAMP(6)}. The poller compares them with the same clock, so an event is due at once
     * however far the application's host clock is from the database's. Do not pass the
     * application's own clock here: it would date the rows by that host again.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public OutboxWriter build() {
      return new JdbcOutboxWriter(this);
    }
  }
}
