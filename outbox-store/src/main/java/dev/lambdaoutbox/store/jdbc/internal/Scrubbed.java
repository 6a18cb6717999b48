package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.config.JdbcUrls;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A driver's exception with the JDBC URL's credentials taken out of every message in its chain
 * (causes and suppressed exceptions too), so it can be kept as a cause and logged. Drivers quote
 * the URL in some errors ({@code DriverManager}'s "No suitable driver found for jdbc:...", MySQL
 * Connector/J's "Malformed database URL ... near '...'"); such an exception is replaced by a copy
 * that keeps the class name, SQLState, error code and stack trace. One that quotes nothing is
 * returned as it is.
 */
public final class Scrubbed {
  private Scrubbed() {}

  /** {@code e}, or a copy of it whose chain holds none of {@code jdbcUrl}'s secrets. */
  public static SQLException of(SQLException e, String jdbcUrl) {
    if (!carriesSecret(e, jdbcUrl, new IdentityHashMap<>())) {
      return e;
    }
    return (SQLException) copy(e, jdbcUrl, new IdentityHashMap<>());
  }

  /** {@code text} with the URL written redacted and its secrets hidden. */
  public static String text(String text, String jdbcUrl) {
    return JdbcUrls.scrub(text, jdbcUrl);
  }

  private static boolean carriesSecret(Throwable t, String url, Map<Throwable, Boolean> seen) {
    if (t == null || seen.put(t, Boolean.TRUE) != null) {
      return false;
    }
    String message = t.getMessage();
    if (message != null && !Objects.equals(JdbcUrls.scrub(message, url), message)) {
      return true;
    }
    if (t instanceof SQLException s
        && s.getNextException() != null
        && carriesSecret(s.getNextException(), url, seen)) {
      return true;
    }
    for (Throwable suppressed : t.getSuppressed()) {
      if (carriesSecret(suppressed, url, seen)) {
        return true;
      }
    }
    return carriesSecret(t.getCause(), url, seen);
  }

  private static Throwable copy(Throwable t, String url, Map<Throwable, Throwable> copies) {
    if (t == null) {
      return null;
    }
    Throwable done = copies.get(t);
    if (done != null) {
      return done;
    }
    String message = JdbcUrls.scrub(t.getMessage(), url);
    Throwable copy =
        t instanceof SQLException s
            ? new ScrubbedSqlException(s.getClass().getName(), message, s)
            : new ScrubbedException(t.getClass().getName(), message);
    copies.put(t, copy);
    copy.setStackTrace(t.getStackTrace());
    Throwable cause = copy(t.getCause(), url, copies);
    if (cause != null) {
      copy.initCause(cause);
    }
    for (Throwable suppressed : t.getSuppressed()) {
      copy.addSuppressed(copy(suppressed, url, copies));
    }
    if (t instanceof SQLException s && s.getNextException() != null) {
      ((SQLException) copy)
          .setNextException((SQLException) copy(s.getNextException(), url, copies));
    }
    return copy;
  }

  /** A driver's {@link SQLException}, its message scrubbed; prints as the original class. */
  static final class ScrubbedSqlException extends SQLException {
    private static final long serialVersionUID = 1L;
    private final String originalClass;

    ScrubbedSqlException(String originalClass, String message, SQLException original) {
      super(message, original.getSQLState(), original.getErrorCode());
      this.originalClass = originalClass;
    }

    @Override
    public String toString() {
      String message = getLocalizedMessage();
      return originalClass + (message == null ? "" : ": " + message);
    }
  }

  /** Any other exception of the chain, its message scrubbed; prints as the original class. */
  static final class ScrubbedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String originalClass;

    ScrubbedException(String originalClass, String message) {
      super(message);
      this.originalClass = originalClass;
    }

    @Override
    public String toString() {
      String message = getLocalizedMessage();
      return originalClass + (message == null ? "" : ": " + message);
    }
  }
}
