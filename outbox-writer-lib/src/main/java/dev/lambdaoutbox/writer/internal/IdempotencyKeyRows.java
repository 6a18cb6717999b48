package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The idempotency key table as the writer uses it: the INSERT of an appended event's key, taking
 * this call's keys back after a refusal, and finding the event that holds a key.
 */
public final class IdempotencyKeyRows {
  private IdempotencyKeyRows() {}

  /** A key the writer refused, and the event holding it. */
  public record Holder(String key, UUID eventId) {}

  /** The INSERT of {@code rows} keys, first seen at {@code stamp}, without a conflict clause. */
  public static String insertSql(OutboxTables tables, int rows, SqlDialect dialect, Stamp stamp) {
    return "INSERT INTO "
        + tables.idempotencyKeys()
        + " (idempotency_key, event_id, first_seen_at) VALUES "
        + String.join(", ", Collections.nCopies(rows, "(?, ?, " + stamp.sql(dialect) + ")"));
  }

  /**
   * Binds the keys of {@code keyed} (events that all have one) from parameter {@code first}, for
   * {@link #insertSql} with the same {@code stamp}; returns the next parameter's index.
   */
  public static int bind(
      PreparedStatement ps, int first, List<OutboxEvent> keyed, Stamp stamp, SqlDialect dialect)
      throws SQLException {
    int i = first;
    for (OutboxEvent e : keyed) {
      ps.setString(i++, e.idempotencyKey().orElseThrow());
      JdbcValues.setUuid(ps, i++, e.id(), dialect);
      i = stamp.bind(ps, i, dialect);
    }
    return i;
  }

  /**
   * Deletes the key rows this very call wrote, when a later statement of the call was refused and
   * no savepoint covers them. The rows are this transaction's own, so nobody else can hold them.
   */
  public static void takeBack(Connection connection, OutboxTables tables, List<String> keys)
      throws SQLException {
    String sql =
        "DELETE FROM "
            + tables.idempotencyKeys()
            + " WHERE idempotency_key IN ("
            + placeholders(keys.size())
            + ")";
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      for (int i = 0; i < keys.size(); i++) {
        ps.setString(i + 1, keys.get(i));
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, sql);
    }
  }

  /**
   * The first of {@code suspects} (in their order) that is held in the key table or by an outbox
   * row, with the event holding it; null when none is (any more).
   *
   * <p>On MySQL the look-up is a locking read: in REPEATABLE READ a plain SELECT reads the
   * transaction's snapshot, which may predate the holder's commit. The refused INSERT already took
   * a shared lock on the holder's record, so this waits for nobody.
   */
  public static Holder holder(
      Connection connection,
      OutboxTables tables,
      SqlDialect dialect,
      ChunkOutcome.HeldIn heldIn,
      List<String> suspects)
      throws SQLException {
    boolean keyTable = heldIn == ChunkOutcome.HeldIn.KEY_TABLE;
    String sql =
        "SELECT idempotency_key, "
            + (keyTable ? "event_id" : "id")
            + " AS event_id FROM "
            + (keyTable ? tables.idempotencyKeys() : tables.messages())
            + " WHERE idempotency_key IN ("
            + placeholders(suspects.size())
            + ")"
            + (dialect == SqlDialect.MYSQL ? " LOCK IN SHARE MODE" : "");
    Map<String, UUID> found = new HashMap<>();
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      for (int i = 0; i < suspects.size(); i++) {
        ps.setString(i + 1, suspects.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.put(rs.getString("idempotency_key"), JdbcValues.getUuid(rs, "event_id", dialect));
        }
      }
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, sql);
    }
    for (String key : suspects) {
      if (found.containsKey(key)) {
        return new Holder(key, found.get(key));
      }
    }
    return null;
  }

  private static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }
}
