package dev.lambdaoutbox.store.sql;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A typed parameter value; {@code value} is null for a typed SQL NULL. The kind tells each executor
 * how to send it: over JDBC, how to bind it in the dialect (a UUID is {@code uuid} in PostgreSQL
 * and {@code char(36)} in MySQL); over the Data API, which {@code typeHint} to give.
 */
public record SqlValue(Kind kind, Object value) {
  /** The parameter types statements use, each with the Java type of its value. */
  public enum Kind {
    /** {@link String}. */
    TEXT(String.class),
    /** {@link UUID}. */
    UUID(java.util.UUID.class),
    /**
     * {@link Instant}, sent as the UTC wall-clock time to the microsecond, without a zone: SQL
     * reads it as UTC ({@code AT TIME ZONE 'UTC'} in PostgreSQL; MySQL stores UTC {@code
     * datetime(6)}).
     */
    TIMESTAMP(Instant.class),
    /** {@link Integer}. */
    INT(Integer.class),
    /** {@link Long}. */
    LONG(Long.class),
    /** JSON text, a {@link String}. */
    JSON(String.class),
    /** {@link BigDecimal}. */
    DECIMAL(BigDecimal.class);

    private final Class<?> javaType;

    Kind(Class<?> javaType) {
      this.javaType = javaType;
    }

    public Class<?> javaType() {
      return javaType;
    }
  }

  public SqlValue {
    Objects.requireNonNull(kind, "kind");
    if (value != null && !kind.javaType.isInstance(value)) {
      throw new IllegalArgumentException(
          kind + " value must be a " + kind.javaType.getSimpleName() + ", not " + value.getClass());
    }
  }

  public boolean isNull() {
    return value == null;
  }
}
