package dev.lambdaoutbox.store.config;

import dev.lambdaoutbox.core.SqlDialect;
import java.util.List;
import java.util.Locale;

/**
 * MySQL Connector/J's legacy TLS flags in a JDBC URL ({@code useSSL}, {@code requireSSL}, {@code
 * verifyServerCertificate}) against the mode of {@code OUTBOX_DB_TLS}: refused at start-up when
 * they turn off what the mode needs, and kept when they ask for at least as much.
 */
public final class MysqlLegacyTlsFlags {
  /**
   * Connector/J's legacy flags, which it maps to a mode only when {@code sslMode} is not set, and
   * never to the verify-full one: {@code useSSL=true} alone gives {@code PREFERRED}, which falls
   * back to plain text.
   */
  private static final List<String> MYSQL_LEGACY_FLAGS =
      List.of("useSSL", "requireSSL", "verifyServerCertificate");

  private MysqlLegacyTlsFlags() {}

  /**
   * Refuses, naming the flag, a MySQL URL not on loopback whose legacy flags ({@code useSSL},
   * {@code requireSSL}, {@code verifyServerCertificate}, without {@code sslMode}) turn off what
   * {@code tls} asks for: encryption ({@code useSSL=false}, {@code requireSSL=false}) or, for
   * verify-full, the certificate's check ({@code verifyServerCertificate=false}); or gives one a
   * value Connector/J does not take. Flags that ask for TLS are fine: {@code TlsProperties.forUrl}
   * adds {@code sslMode}, which Connector/J obeys over them.
   *
   * @throws ConfigurationException naming {@code OUTBOX_JDBC_URL}
   */
  public static void check(SqlDialect dialect, String jdbcUrl, DatabaseTls tls) {
    if (dialect == SqlDialect.MYSQL) {
      keepAtLeast(jdbcUrl, tls.mode());
    }
  }

  /**
   * Whether the URL's legacy flags keep at least {@code mode} by themselves (so nothing is added);
   * false when they ask for TLS but less than {@code mode}, or set none.
   */
  public static boolean keepAtLeast(String jdbcUrl, DatabaseTls.Mode mode) {
    if (JdbcUrls.hasParameter(jdbcUrl, "sslMode") || JdbcUrls.onLoopback(jdbcUrl)) {
      return false;
    }
    boolean any = false;
    boolean useSsl = true;
    boolean requireSsl = false;
    boolean verify = false;
    for (String flag : MYSQL_LEGACY_FLAGS) {
      for (String value : JdbcUrls.parameterValues(jdbcUrl, flag)) {
        any = true;
        boolean on =
            switch (value.toLowerCase(Locale.ROOT)) {
              case "true", "yes" -> true;
              case "false", "no" -> false;
              default ->
                  throw new ConfigurationException(
                      DatabaseSettings.JDBC_URL,
                      flag
                          + "="
                          + value
                          + " is not a value MySQL Connector/J takes (true, false, yes or no);"
                          + " better, drop the flag and let "
                          + DatabaseTls.TLS
                          + " choose, or write sslMode= in the URL");
            };
        if (!on && turnsOff(flag, mode)) {
          throw new ConfigurationException(
              DatabaseSettings.JDBC_URL,
              flag
                  + "="
                  + value
                  + " turns off "
                  + (flag.equals("verifyServerCertificate")
                      ? "the check of the database's certificate"
                      : "TLS")
                  + ", which "
                  + DatabaseTls.TLS
                  + "="
                  + mode.text()
                  + " asks for (the default is verify-full). Remove the flag, or choose the"
                  + " mode yourself: sslMode= in the URL (which MySQL Connector/J obeys over its"
                  + " legacy flags), or "
                  + DatabaseTls.TLS);
        }
        switch (flag) {
          case "useSSL" -> useSsl &= on;
          case "requireSSL" -> requireSsl |= on;
          default -> verify |= on;
        }
      }
    }
    if (!any) {
      return false;
    }
    // The mode Connector/J 9 derives from the flags, and the one asked for, on one scale:
    // DISABLED 0, PREFERRED 1, REQUIRED 2, VERIFY_CA 3, VERIFY_IDENTITY 4.
    int flagged = !useSsl ? 0 : verify ? 3 : requireSsl ? 2 : 1;
    int asked =
        switch (mode) {
          case DISABLE -> 0;
          case REQUIRE -> 2;
          case VERIFY_FULL -> 4;
        };
    return flagged >= asked;
  }

  /** Whether {@code flag} set to false turns off what {@code mode} needs. */
  private static boolean turnsOff(String flag, DatabaseTls.Mode mode) {
    return switch (flag) {
      case "verifyServerCertificate" -> mode == DatabaseTls.Mode.VERIFY_FULL;
      default -> mode != DatabaseTls.Mode.DISABLE;
    };
  }
}
