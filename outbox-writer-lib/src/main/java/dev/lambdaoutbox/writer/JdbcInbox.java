package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import org.jdbi.v3.core.Handle;

/** The {@link Inbox}: an insert that does nothing on a clash, in the caller's transaction. */
final class JdbcInbox implements Inbox {
  private final OutboxTables tables;
  private final Clock clock;

  JdbcInbox(OutboxTables tables, Clock clock) {
    this.tables = tables;
    this.clock = clock;
  }

  @Override
  public <X extends Exception> InboxResult processOnce(
      Handle handle, String consumerName, String messageId, Work<X> work) throws X {
    if (!handle.isInTransaction()) {
      throw new TransactionRequiredException("the Jdbi handle");
    }
    return processOnce(handle.getConnection(), consumerName, messageId, work);
  }

  @Override
  public <X extends Exception> InboxResult processOnce(
      Connection connection, String consumerName, String messageId, Work<X> work) throws X {
    requireId("consumerName", consumerName);
    requireId("messageId", messageId);
    if (work == null) {
      throw new IllegalArgumentException("work: must not be null");
    }
    if (!record(connection, consumerName, messageId)) {
      return InboxResult.SKIPPED;
    }
    work.run();
    return InboxResult.PROCESSED;
  }

  /**
   * Records the id; false when it was already there. Waits for a concurrent transaction holding it.
   */
  private boolean record(Connection connection, String consumerName, String messageId) {
    try {
      if (connection.getAutoCommit()) {
        throw new TransactionRequiredException("the JDBC connection");
      }
      SqlDialect dialect = SqlDialect.of(connection);
      String insert =
          dialect == SqlDialect.POSTGRESQL
              ? "INSERT INTO "
                  + tables.inbox()
                  + " (consumer_name, message_id, processed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
              // Safe here: the values were checked, so IGNORE can only skip the duplicate key.
              : "INSERT IGNORE INTO "
                  + tables.inbox()
                  + " (consumer_name, message_id, processed_at) VALUES (?, ?, ?)";
      try (PreparedStatement ps = connection.prepareStatement(insert)) {
        ps.setString(1, consumerName);
        ps.setString(2, messageId);
        JdbcValues.setInstant(ps, 3, clock.instant(), dialect);
        return ps.executeUpdate() == 1;
      } catch (SQLException e) {
        throw PermissionDenied.explained(e, insert);
      }
    } catch (SQLException e) {
      throw new OutboxException(
          "could not record message "
              + messageId
              + " for consumer "
              + consumerName
              + " in "
              + tables.inbox()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static void requireId(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + ": must not be blank");
    }
    if (value.length() > OutboxEvent.MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          field + ": has more than " + OutboxEvent.MAX_NAME_LENGTH + " characters");
    }
  }
}
