package dev.lambdaoutbox.store.dataapi.internal;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlValue;
import dev.lambdaoutbox.store.sql.internal.NamedSql;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.services.rdsdata.model.Field;
import software.amazon.awssdk.services.rdsdata.model.SqlParameter;
import software.amazon.awssdk.services.rdsdata.model.TypeHint;

/**
 * Typed values as the Data API takes them, and result fields as text.
 *
 * <ul>
 *   <li>text: {@code stringValue};
 *   <li>a UUID: {@code stringValue} with {@code typeHint UUID} in PostgreSQL ({@code uuid}), plain
 *       text in MySQL ({@code char(36)});
 *   <li>a time: {@code stringValue} {@code YYYY-MM-DD HH:MM:SS.ffffff} in UTC with {@code typeHint
 *       TIMESTAMP};
 *   <li>JSON text: {@code typeHint JSON}; a decimal: its plain digits with {@code typeHint
 *       DECIMAL};
 *   <li>whole numbers: {@code longValue};
 *   <li>a null: {@code isNull}, keeping the type hint so the server knows its type.
 * </ul>
 */
public final class DataApiValues {
  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private DataApiValues() {}

  /** The parameters {@code sql} names, in the order it first names them, from {@code params}. */
  public static List<SqlParameter> parameters(String sql, Params params, SqlDialect dialect) {
    Set<String> names = new LinkedHashSet<>(NamedSql.of(sql).names());
    List<SqlParameter> parameters = new ArrayList<>(names.size());
    for (String name : names) {
      parameters.add(parameter(name, params.get(name), dialect));
    }
    return parameters;
  }

  static SqlParameter parameter(String name, SqlValue value, SqlDialect dialect) {
    SqlParameter.Builder p = SqlParameter.builder().name(name);
    TypeHint hint = hint(value.kind(), dialect);
    if (hint != null) {
      p.typeHint(hint);
    }
    Object v = value.value();
    if (v == null) {
      return p.value(Field.builder().isNull(true).build()).build();
    }
    Field field =
        switch (value.kind()) {
          case TEXT, JSON -> Field.fromStringValue((String) v);
          case UUID -> Field.fromStringValue(v.toString());
          case TIMESTAMP ->
              Field.fromStringValue(
                  UTC_TIME.format(LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC)));
          case INT -> Field.fromLongValue(((Integer) v).longValue());
          case LONG -> Field.fromLongValue((Long) v);
          case DECIMAL -> Field.fromStringValue(((BigDecimal) v).toPlainString());
        };
    return p.value(field).build();
  }

  /** The characters a parameter set's values and names take, roughly as they travel. */
  static long size(List<SqlParameter> set) {
    long size = 0;
    for (SqlParameter p : set) {
      Field v = p.value();
      size += p.name().length() + 48L + (v.stringValue() == null ? 0 : v.stringValue().length());
    }
    return size;
  }

  private static TypeHint hint(SqlValue.Kind kind, SqlDialect dialect) {
    return switch (kind) {
      case UUID -> dialect == SqlDialect.POSTGRESQL ? TypeHint.UUID : null;
      case TIMESTAMP -> TypeHint.TIMESTAMP;
      case JSON -> TypeHint.JSON;
      case DECIMAL -> TypeHint.DECIMAL;
      case TEXT, INT, LONG -> null;
    };
  }

  /** A result field as the text {@link dev.lambdaoutbox.store.sql.Row} reads; null for NULL. */
  public static String text(Field field) {
    return switch (field.type()) {
      case IS_NULL -> null;
      case STRING_VALUE -> field.stringValue();
      case LONG_VALUE -> Long.toString(field.longValue());
      case DOUBLE_VALUE -> Double.toString(field.doubleValue());
      case BOOLEAN_VALUE -> Boolean.toString(field.booleanValue());
      case BLOB_VALUE -> Base64.getEncoder().encodeToString(field.blobValue().asByteArray());
      case ARRAY_VALUE, UNKNOWN_TO_SDK_VERSION ->
          throw new IllegalStateException("the Data API returned a field of type " + field.type());
    };
  }
}
