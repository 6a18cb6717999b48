package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.sql.SqlValue;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.UUID;

/**
 * Binds typed values as each dialect's tables hold them: a UUID is {@code uuid} in PostgreSQL and
 * {@code char(36)} text in MySQL; a time is the UTC wall-clock {@code timestamp} in PostgreSQL
 * (which the statements read as UTC) and UTC {@code datetime(6)} text in MySQL.
 */
public final class JdbcBinder {
  private static final DateTimeFormatter MYSQL_DATETIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private final SqlDialect dialect;

  public JdbcBinder(SqlDialect dialect) {
    this.dialect = dialect;
  }

  public void bind(PreparedStatement ps, int index, SqlValue value) throws SQLException {
    Object v = value.value();
    boolean pg = dialect == SqlDialect.POSTGRESQL;
    switch (value.kind()) {
      case TEXT, JSON -> {
        if (v == null) {
          ps.setNull(index, Types.VARCHAR);
        } else {
          ps.setString(index, (String) v);
        }
      }
      case UUID -> {
        if (v == null) {
          ps.setNull(index, pg ? Types.OTHER : Types.CHAR);
        } else if (pg) {
          ps.setObject(index, (UUID) v);
        } else {
          ps.setString(index, v.toString());
        }
      }
      case TIMESTAMP -> {
        LocalDateTime utc = v == null ? null : LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC);
        if (utc == null) {
          ps.setNull(index, Types.TIMESTAMP);
        } else if (pg) {
          ps.setObject(index, utc);
        } else {
          // As text, not a LocalDateTime: MySQL Connector/J reads MariaDB's version as "5.5.5" and
          // then drops the fractional seconds of temporal parameters. Text keeps the microseconds
          // on every server and driver.
          ps.setString(index, MYSQL_DATETIME.format(utc));
        }
      }
      case INT -> {
        if (v == null) {
          ps.setNull(index, Types.INTEGER);
        } else {
          ps.setInt(index, (Integer) v);
        }
      }
      case LONG -> {
        if (v == null) {
          ps.setNull(index, Types.BIGINT);
        } else {
          ps.setLong(index, (Long) v);
        }
      }
      case DECIMAL -> {
        if (v == null) {
          ps.setNull(index, Types.NUMERIC);
        } else {
          ps.setBigDecimal(index, (BigDecimal) v);
        }
      }
    }
  }
}
