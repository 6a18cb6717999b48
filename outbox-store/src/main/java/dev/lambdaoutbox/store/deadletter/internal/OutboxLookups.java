package dev.lambdaoutbox.store.deadletter.internal;

import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** What the outbox table already holds: ids, and idempotency keys with the row holding each. */
public final class OutboxLookups {
  private final OutboxTables tables;
  private final SqlDialect dialect;

  public OutboxLookups(OutboxTables tables, SqlDialect dialect) {
    this.tables = tables;
    this.dialect = dialect;
  }

  /** Those of {@code ids} that are outbox rows. */
  public Set<UUID> idsInOutbox(Connection c, Collection<UUID> ids) throws SQLException {
    Set<UUID> found = new HashSet<>();
    if (ids.isEmpty()) {
      return found;
    }
    Conditions where = new Conditions(dialect).idIn("id", ids);
    try (PreparedStatement ps =
        c.prepareStatement("SELECT id FROM " + tables.messages() + where.where())) {
      where.bind(ps, 1);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(JdbcValues.getUuid(rs, "id", dialect));
        }
      }
    }
    return found;
  }

  /** Of {@code keys}, those an outbox row holds, with that row's id. */
  public Map<String, UUID> keyHolders(Connection c, Collection<String> keys) throws SQLException {
    Map<String, UUID> holders = new HashMap<>();
    if (keys.isEmpty()) {
      return holders;
    }
    Conditions where = new Conditions(dialect).textIn("idempotency_key", keys);
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id, idempotency_key FROM " + tables.messages() + where.where())) {
      where.bind(ps, 1);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          holders.put(rs.getString("idempotency_key"), JdbcValues.getUuid(rs, "id", dialect));
        }
      }
    }
    return holders;
  }

  public boolean isInOutbox(Connection c, UUID id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM " + tables.messages() + " WHERE id = ?")) {
      JdbcValues.setUuid(ps, 1, id, dialect);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
