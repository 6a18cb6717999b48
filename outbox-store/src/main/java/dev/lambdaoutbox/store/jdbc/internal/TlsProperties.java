package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.DatabaseTls;
import dev.lambdaoutbox.store.config.JdbcUrls;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The driver properties that put {@link DatabaseTls} into effect for one JDBC URL:
 *
 * <ul>
 *   <li>A database named by a loopback address ({@code localhost}, 127.0.0.0/8, {@code ::1}) gets
 *       nothing: the local test bed and SSH tunnels stay as their URL says.
 *   <li>Otherwise, unless the URL chooses a mode itself, the mode of {@code OUTBOX_DB_TLS}:
 *       PostgreSQL {@code sslmode=verify-full|require|disable}, MySQL Connector/J {@code
 *       sslMode=VERIFY_IDENTITY|REQUIRED|DISABLED}. A MySQL URL chooses by {@code sslMode}; its
 *       legacy flags never lower the mode: those asking for less TLS than it get {@code sslMode}
 *       over them, and one turning off what it needs is refused ({@link #check}).
 *   <li>Whom to trust, unless the URL says so itself: the CA file of {@code OUTBOX_DB_TLS_CA_FILE}
 *       (PostgreSQL {@code sslrootcert}; MySQL a PKCS12 trust store made from it, {@link
 *       TrustStoreFile}), else the JVM's trust store (PostgreSQL {@code
 *       sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory}, where the driver would otherwise look
 *       for {@code ~/.postgresql/root.crt}; MySQL Connector/J uses it by itself).
 * </ul>
 */
public final class TlsProperties {
  /** URL parameters by which a PostgreSQL URL chooses its own TLS mode. */
  private static final List<String> POSTGRES_MODE = List.of("sslmode", "ssl");

  /** ... and by which it says whom to trust. */
  private static final List<String> POSTGRES_TRUST = List.of("sslrootcert", "sslfactory");

  /** The parameter by which a MySQL URL chooses its own TLS mode. */
  private static final String MYSQL_MODE = "sslMode";

  /**
   * Connector/J's legacy flags, which it maps to a mode only when {@code sslMode} is not set, and
   * never to the verify-full one: {@code useSSL=true} alone gives {@code PREFERRED}, which falls
   * back to plain text.
   */
  private static final List<String> MYSQL_LEGACY_FLAGS =
      List.of("useSSL", "requireSSL", "verifyServerCertificate");

  private static final List<String> MYSQL_TRUST =
      List.of("trustCertificateKeyStoreUrl", "fallbackToSystemTrustStore");

  private TlsProperties() {}

  /**
   * The properties to add for {@code jdbcUrl}; empty when the URL is to be used as written.
   *
   * @throws ConfigurationException as {@link #check} does
   */
  public static Properties forUrl(SqlDialect dialect, String jdbcUrl, DatabaseTls tls) {
    Properties p = new Properties();
    boolean postgres = dialect == SqlDialect.POSTGRESQL;
    boolean explicitMode = setsAny(jdbcUrl, postgres ? POSTGRES_MODE : List.of(MYSQL_MODE));
    if (!explicitMode && onLoopback(jdbcUrl)) {
      return p;
    }
    DatabaseTls.Mode mode = explicitMode ? null : tls.mode();
    if (mode != null && !postgres && keptByLegacyFlags(jdbcUrl, mode)) {
      mode = null;
    }
    if (mode != null) {
      p.setProperty(postgres ? "sslmode" : "sslMode", postgres ? mode.text() : mysqlMode(mode));
    }
    if (mode == DatabaseTls.Mode.DISABLE
        || mode == DatabaseTls.Mode.REQUIRE
        || setsAny(jdbcUrl, postgres ? POSTGRES_TRUST : MYSQL_TRUST)) {
      return p;
    }
    if (postgres) {
      tls.caFile()
          .ifPresentOrElse(
              ca -> p.setProperty("sslrootcert", ca.toString()),
              () -> p.setProperty("sslfactory", "org.postgresql.ssl.DefaultJavaSSLFactory"));
    } else if (tls.caFile().isPresent()) {
      Path store = TrustStoreFile.of(tls.caFile().get());
      p.setProperty("trustCertificateKeyStoreUrl", store.toUri().toString());
      p.setProperty("trustCertificateKeyStoreType", TrustStoreFile.TYPE);
      p.setProperty("trustCertificateKeyStorePassword", TrustStoreFile.PASSWORD);
    }
    return p;
  }

  /**
   * Refuses, naming the flag, a MySQL URL not on loopback whose legacy flags ({@code useSSL},
   * {@code requireSSL}, {@code verifyServerCertificate}, without {@code sslMode}) turn off what
   * {@code tls} asks for: encryption ({@code useSSL=false}, {@code requireSSL=false}) or, for
   * verify-full, the certificate's check ({@code verifyServerCertificate=false}); or gives one a
   * value Connector/J does not take. Flags that ask for TLS are fine: {@link #forUrl} adds {@code
   * sslMode}, which Connector/J obeys over them.
   *
   * @throws ConfigurationException naming {@code OUTBOX_JDBC_URL}
   */
  public static void check(SqlDialect dialect, String jdbcUrl, DatabaseTls tls) {
    if (dialect == SqlDialect.MYSQL) {
      keptByLegacyFlags(jdbcUrl, tls.mode());
    }
  }

  /**
   * Whether the URL's legacy flags keep at least {@code mode} by themselves (so nothing is added);
   * false when they ask for TLS but less than {@code mode}, or set none.
   */
  private static boolean keptByLegacyFlags(String jdbcUrl, DatabaseTls.Mode mode) {
    if (JdbcUrls.hasParameter(jdbcUrl, MYSQL_MODE) || onLoopback(jdbcUrl)) {
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

  /** Whether every host of {@code jdbcUrl} is written as a loopback address. */
  public static boolean onLoopback(String jdbcUrl) {
    return JdbcUrls.hosts(jdbcUrl).stream().allMatch(JdbcUrls::isLoopback);
  }

  private static String mysqlMode(DatabaseTls.Mode mode) {
    return switch (mode) {
      case VERIFY_FULL -> "VERIFY_IDENTITY";
      case REQUIRE -> "REQUIRED";
      case DISABLE -> "DISABLED";
    };
  }

  private static boolean setsAny(String url, List<String> names) {
    return names.stream().anyMatch(name -> JdbcUrls.hasParameter(url, name));
  }
}
