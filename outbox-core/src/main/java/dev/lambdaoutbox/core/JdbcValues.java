package dev.lambdaoutbox.core;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.UUID;

/**
 * Binds and reads the column types whose JDBC mapping differs by dialect: ids are {@code uuid} in
 * PostgreSQL and {@code char(36)} in MySQL; times are {@code timestamptz} in PostgreSQL and UTC
 * {@code datetime(6)} in MySQL.
 */
public final class JdbcValues {
  private static final DateTimeFormatter MYSQL_DATETIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private JdbcValues() {}

  public static void setUuid(PreparedStatement ps, int index, UUID id, SqlDialect dialect)
      throws SQLException {
    if (dialect == SqlDialect.POSTGRESQL) {
      ps.setObject(index, id);
    } else {
      ps.setString(index, id.toString());
    }
  }

  public static UUID getUuid(ResultSet rs, String column, SqlDialect dialect) throws SQLException {
    if (dialect == SqlDialect.POSTGRESQL) {
      return rs.getObject(column, UUID.class);
    }
    String text = rs.getString(column);
    return text == null ? null : UUID.fromString(text);
  }

  public static void setInstant(
      PreparedStatement ps, int index, Instant instant, SqlDialect dialect) throws SQLException {
    if (instant == null) {
      ps.setNull(
          index,
          dialect == SqlDialect.POSTGRESQL ? Types.TIMESTAMP_WITH_TIMEZONE : Types.TIMESTAMP);
    } else if (dialect == SqlDialect.POSTGRESQL) {
      ps.setObject(index, instant.atOffset(ZoneOffset.UTC));
    } else {
      // As text, not a LocalDateTime: MySQL Connector/J reads MariaDB's version as "5.5.5" and then
      // drops the fractional seconds of temporal parameters. Text keeps the microseconds on every
      // server and driver.
      ps.setString(index, MYSQL_DATETIME.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC)));
    }
  }

  public static Instant getInstant(ResultSet rs, String column, SqlDialect dialect)
      throws SQLException {
    if (dialect == SqlDialect.POSTGRESQL) {
      OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
      return t == null ? null : t.toInstant();
    }
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }
}
