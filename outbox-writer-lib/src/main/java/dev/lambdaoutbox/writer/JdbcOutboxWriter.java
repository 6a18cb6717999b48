package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.writer.internal.OutboxInsert;
import dev.lambdaoutbox.writer.internal.Utf8;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/** The {@link OutboxWriter}: plain JDBC on the caller's connection. */
final class JdbcOutboxWriter implements OutboxWriter {
  private static final int MYSQL_DUPLICATE_KEY = 1062;

  private final OutboxTables tables;
  private final SqlDialect fixedDialect;
  private final int maxPayloadBytes;
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
    List<String> keys = validate(events);
    SqlDialect dialect = fixedDialect != null ? fixedDialect : SqlDialect.of(connection);
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
    try {
      insert(connection, dialect, events, keys, now);
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

  private void insert(
      Connection connection,
      SqlDialect dialect,
      List<OutboxEvent> events,
      List<String> keys,
      Instant now)
      throws SQLException {
    int chunks = (events.size() + OutboxInsert.MAX_ROWS - 1) / OutboxInsert.MAX_ROWS;
    // A refused key must leave nothing of this call behind. One MySQL statement is atomic on its
    // own. PostgreSQL skips the clashing row and inserts the others of its statement. So only where
    // other rows could stay (several statements, or several rows on PostgreSQL) does a savepoint
    // undo them: a single event, the common case, needs none and saves two round trips.
    boolean needsSavepoint =
        !keys.isEmpty() && (chunks > 1 || (dialect == SqlDialect.POSTGRESQL && events.size() > 1));
    Savepoint savepoint = needsSavepoint ? connection.setSavepoint() : null;
    try {
      int inserted = 0;
      for (int from = 0; from < events.size(); from += OutboxInsert.MAX_ROWS) {
        List<OutboxEvent> chunk =
            events.subList(from, Math.min(events.size(), from + OutboxInsert.MAX_ROWS));
        try (PreparedStatement ps =
            connection.prepareStatement(OutboxInsert.sql(tables, dialect, chunk.size()))) {
          OutboxInsert.bind(ps, chunk, now, dialect);
          inserted += ps.executeUpdate();
        }
      }
      if (inserted
          < events.size()) { // PostgreSQL: ON CONFLICT (idempotency_key) DO NOTHING skipped a row
        rollback(connection, savepoint);
        throw new DuplicateIdempotencyKeyException(takenKey(connection, keys));
      }
      if (savepoint != null) {
        connection.releaseSavepoint(savepoint);
      }
    } catch (SQLException e) {
      if (e.getErrorCode() == MYSQL_DUPLICATE_KEY
          && String.valueOf(e.getMessage()).contains("_idem_uq")) {
        rollback(connection, savepoint);
        List<String> named = keysNamedIn(e.getMessage(), keys);
        throw new DuplicateIdempotencyKeyException(
            named.size() == 1 ? named.get(0) : takenKey(connection, named));
      }
      throw e;
    }
  }

  private static void rollback(Connection connection, Savepoint savepoint) throws SQLException {
    if (savepoint != null) {
      connection.rollback(savepoint);
    }
  }

  /** Which of {@code keys} is already in the table (after the savepoint undid this call's rows). */
  private String takenKey(Connection connection, List<String> keys) throws SQLException {
    String sql = "SELECT idempotency_key FROM " + tables.messages() + " WHERE idempotency_key = ?";
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      for (String key : keys) {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return key;
          }
        }
      }
    }
    // Not found: its holder rolled back since our insert, or (MySQL) our snapshot predates it.
    return keys.get(0);
  }

  /**
   * The {@code keys} that MySQL's "Duplicate entry 'KEY' for key '...'" message may mean: the one
   * it quotes, or, as servers quote at most 64 characters (MariaDB then adds "..."), those starting
   * with the quoted text; all of them when the message quotes none.
   */
  static List<String> keysNamedIn(String message, List<String> keys) {
    String marker = "Duplicate entry '";
    int start = message == null ? -1 : message.indexOf(marker);
    int end = message == null ? -1 : message.lastIndexOf("' for key");
    if (start < 0 || end < start + marker.length()) {
      return keys;
    }
    String entry = message.substring(start + marker.length(), end);
    if (keys.contains(entry)) {
      return List.of(entry);
    }
    String quoted = entry.endsWith("...") ? entry.substring(0, entry.length() - 3) : entry;
    List<String> candidates = keys.stream().filter(k -> k.startsWith(quoted)).toList();
    return candidates.isEmpty() ? keys : candidates;
  }

  /**
   * Checks what the table cannot: the size of the message, the configured payload limit, and keys
   * repeated within the call.
   */
  private List<String> validate(List<OutboxEvent> events) {
    Set<String> keys = new HashSet<>();
    for (OutboxEvent e : events) {
      if (e == null) {
        throw new InvalidOutboxEventException("event", "must not be null");
      }
      refuseOversized(e);
      if (e.idempotencyKey().isPresent() && !keys.add(e.idempotencyKey().get())) {
        throw new DuplicateIdempotencyKeyException(e.idempotencyKey().get());
      }
    }
    return List.copyOf(keys);
  }

  /**
   * Refuses what the poller could never send: a message over {@link MessageSize#MAX_BYTES} as SNS
   * and SQS count it (payload and attributes), or a payload over the configured limit.
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
              + "). Store large documents elsewhere (e.g. S3) and publish a reference.");
    }
    long messageBytes = MessageSize.of(e);
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
