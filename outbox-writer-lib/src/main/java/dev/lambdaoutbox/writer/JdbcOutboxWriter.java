package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.writer.internal.ChunkOutcome;
import dev.lambdaoutbox.writer.internal.IdempotencyKeyRows;
import dev.lambdaoutbox.writer.internal.IdempotencyKeyRows.Holder;
import dev.lambdaoutbox.writer.internal.MysqlKeyedInsert;
import dev.lambdaoutbox.writer.internal.OutboxInsert;
import dev.lambdaoutbox.writer.internal.PostgresKeyedInsert;
import dev.lambdaoutbox.writer.internal.Stamp;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** The {@link OutboxWriter}: plain JDBC on the caller's connection. */
final class JdbcOutboxWriter implements OutboxWriter {
  /** How often a call starts over when a refused key's holder is gone by the time it is read. */
  private static final int MAX_ATTEMPTS = 3;

  private final OutboxTables tables;
  private final SqlDialect fixedDialect;
  private final int maxPayloadBytes;

  /** Stands in for the database's clock; null: the database's own. */
  private final Clock clock;

  JdbcOutboxWriter(Builder b) {
    this.tables = b.tables;
    this.fixedDialect = b.dialect;
    this.maxPayloadBytes = b.maxPayloadBytes;
    this.clock = b.clock;
  }

  @Override
  public void append(Handle handle, OutboxEvent event) {
    append(connectionOf(handle), event);
  }

  @Override
  public void appendAll(Handle handle, List<OutboxEvent> events) {
    appendAll(connectionOf(handle), events);
  }

  @Override
  public void append(Connection connection, OutboxEvent event) {
    appendAll(connection, List.of(event));
  }

  @Override
  public void appendAll(Connection connection, List<OutboxEvent> events) {
    requireTransaction(connection);
    if (events.isEmpty()) {
      return;
    }
    validate(events);
    SqlDialect dialect = fixedDialect != null ? fixedDialect : SqlDialect.of(connection);
    Stamp stamp =
        clock == null ? Stamp.DATABASE : Stamp.at(clock.instant().truncatedTo(ChronoUnit.MICROS));
    try {
      insert(connection, dialect, events, stamp);
    } catch (SQLException e) {
      throw new OutboxException(
          "could not append "
              + describe(events)
              + " to "
              + tables.messages()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Writes the events; throws {@link DuplicateIdempotencyKeyException} when a key is taken, having
   * undone whatever this call wrote. Should the event holding a refused key be gone by the time it
   * is looked up (purged, or published and deleted), the key is free again and the call starts
   * over.
   */
  private void insert(
      Connection connection, SqlDialect dialect, List<OutboxEvent> events, Stamp stamp)
      throws SQLException {
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (tryInsert(connection, dialect, events, stamp)) {
        return;
      }
    }
    throw new OutboxException(
        "the idempotency keys of "
            + describe(events)
            + " were refused "
            + MAX_ATTEMPTS
            + " times, but their holders were gone each time; roll back and retry the transaction");
  }

  /**
   * True when every event was written; false when a key was refused but its holder is gone, so the
   * call may start over.
   */
  private boolean tryInsert(
      Connection connection, SqlDialect dialect, List<OutboxEvent> events, Stamp stamp)
      throws SQLException {
    int chunks = (events.size() + OutboxInsert.MAX_ROWS - 1) / OutboxInsert.MAX_ROWS;
    boolean keyed = events.stream().anyMatch(e -> e.idempotencyKey().isPresent());
    // A refusal must leave nothing of this call behind. A refused statement writes nothing on
    // either database, and each chunk takes its own keys back when its second write is refused, so
    // only where an earlier statement of the call could remain (several chunks) or where PostgreSQL
    // wrote part of a multi-row chunk does a savepoint undo them: a single event, the common case,
    // needs none and saves two round trips.
    boolean needsSavepoint =
        keyed && (chunks > 1 || (dialect == SqlDialect.POSTGRESQL && events.size() > 1));
    Savepoint savepoint = needsSavepoint ? connection.setSavepoint() : null;
    for (int from = 0; from < events.size(); from += OutboxInsert.MAX_ROWS) {
      List<OutboxEvent> chunk =
          events.subList(from, Math.min(events.size(), from + OutboxInsert.MAX_ROWS));
      ChunkOutcome outcome;
      try {
        outcome = insertChunk(connection, dialect, chunk, stamp);
      } catch (SQLException e) {
        if (savepoint != null) {
          // Leaves nothing of the call behind, and on PostgreSQL the transaction usable again.
          connection.rollback(savepoint);
        }
        throw e;
      }
      if (outcome.isRefused()) {
        ChunkOutcome.Refusal refusal = outcome.refusal();
        if (savepoint != null) {
          connection.rollback(savepoint);
        } else if (refusal.keysWritten()) {
          IdempotencyKeyRows.takeBack(connection, tables, keysOf(chunk));
        }
        Holder holder =
            IdempotencyKeyRows.holder(
                connection, tables, dialect, refusal.heldIn(), refusal.suspects());
        if (holder != null) {
          throw new DuplicateIdempotencyKeyException(holder.key(), holder.eventId());
        }
        return false;
      }
    }
    if (savepoint != null) {
      connection.releaseSavepoint(savepoint);
    }
    return true;
  }

  private ChunkOutcome insertChunk(
      Connection connection, SqlDialect dialect, List<OutboxEvent> chunk, Stamp stamp)
      throws SQLException {
    List<OutboxEvent> keyed = chunk.stream().filter(e -> e.idempotencyKey().isPresent()).toList();
    if (!keyed.isEmpty()) {
      return dialect == SqlDialect.POSTGRESQL
          ? PostgresKeyedInsert.insert(connection, tables, chunk, keyed, stamp)
          : MysqlKeyedInsert.insert(connection, tables, chunk, keyed, stamp);
    }
    String sql = OutboxInsert.sql(tables, dialect, chunk.size(), stamp, OutboxInsert.timed(chunk));
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      OutboxInsert.bind(ps, chunk, stamp, dialect);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, sql);
    }
    return ChunkOutcome.written();
  }

  private static List<String> keysOf(List<OutboxEvent> events) {
    return events.stream().flatMap(e -> e.idempotencyKey().stream()).toList();
  }

  /**
   * Checks what the table cannot: the size of the message, the configured payload limit, and keys
   * repeated within the call.
   */
  private void validate(List<OutboxEvent> events) {
    Map<String, UUID> keys = new HashMap<>();
    for (OutboxEvent e : events) {
      if (e == null) {
        throw new InvalidOutboxEventException("event", "must not be null");
      }
      refuseOversized(e);
      if (e.idempotencyKey().isPresent()) {
        UUID other = keys.putIfAbsent(e.idempotencyKey().get(), e.id());
        if (other != null) {
          throw new InvalidOutboxEventException(
              "idempotencyKey",
              "'"
                  + e.idempotencyKey().get()
                  + "' is given to two events of one call ("
                  + other
                  + " and "
                  + e.id()
                  + "); each event needs a key of its own");
        }
      }
    }
  }

  /**
   * Refuses what the poller could never send: a payload over the configured limit; up to the
   * default limit, a message over {@link MessageSize#MAX_BYTES} as SNS and SQS count it (payload
   * and attributes); above it (a claim-check bucket carries large payloads), attributes that leave
   * no room within it for the pointer message.
   */
  private void refuseOversized(OutboxEvent e) {
    long payloadBytes = Utf8.length(e.payload());
    if (payloadBytes > maxPayloadBytes) {
      throw new InvalidOutboxEventException(
          "payload",
          "is "
              + payloadBytes
              + " bytes of UTF-8; at most "
              + maxPayloadBytes
              + " are allowed (event "
              + e.id()
              + ")."
              + (maxPayloadBytes < MAX_CLAIM_CHECK_PAYLOAD_BYTES
                  ? " Raise OutboxWriter.Builder.maxPayloadBytes (up to "
                      + MAX_CLAIM_CHECK_PAYLOAD_BYTES
                      + ") with the poller's claim-check bucket, or store large documents"
                      + " elsewhere (e.g. S3) and publish a reference."
                  : " No route carries more; store large documents elsewhere (e.g. S3) and"
                      + " publish a reference."));
    }
    long messageBytes = e.messageSize();
    if (maxPayloadBytes > MessageSize.MAX_BYTES) {
      long pointerMessage = messageBytes - payloadBytes + MessageSize.POINTER_ALLOWANCE_BYTES;
      if (pointerMessage > MessageSize.MAX_BYTES) {
        throw new InvalidOutboxEventException(
            "headers",
            "make a message of "
                + pointerMessage
                + " bytes with a claim-check pointer instead of the payload; SNS and SQS accept"
                + " at most "
                + MessageSize.MAX_BYTES
                + " (event "
                + e.id()
                + "). Send fewer or shorter headers.");
      }
      if (messageBytes > MessageSize.MAX_BYTES
          && e.headers().size() >= OutboxMessageAttributes.MAX_HEADERS) {
        throw new InvalidOutboxEventException(
            "headers",
            "are "
                + e.headers().size()
                + " on a message of "
                + messageBytes
                + " bytes, which the claim check sends as a pointer with one message attribute"
                + " more; SNS and SQS accept at most "
                + OutboxMessageAttributes.MAX_ATTRIBUTES
                + " attributes (event "
                + e.id()
                + "). Send at most "
                + (OutboxMessageAttributes.MAX_HEADERS - 1)
                + " headers with a payload this large.");
      }
      return;
    }
    if (messageBytes > MessageSize.MAX_BYTES) {
      throw new InvalidOutboxEventException(
          "payload",
          "makes a message of "
              + messageBytes
              + " bytes with its message attributes ("
              + payloadBytes
              + " of payload); SNS and SQS accept at most "
              + MessageSize.MAX_BYTES
              + " (event "
              + e.id()
              + "). Store large documents elsewhere (e.g. S3) and publish a reference.");
    }
  }

  private static void requireTransaction(Connection connection) {
    try {
      if (connection.getAutoCommit()) {
        throw new TransactionRequiredException("the JDBC connection");
      }
    } catch (SQLException e) {
      throw new OutboxException("could not read the connection's auto-commit mode", e);
    }
  }

  private static Connection connectionOf(Handle handle) {
    if (!handle.isInTransaction()) {
      throw new TransactionRequiredException("the Jdbi handle");
    }
    return handle.getConnection();
  }

  private static String describe(List<OutboxEvent> events) {
    return events.size() == 1 ? "event " + events.get(0).id() : events.size() + " events";
  }
}
