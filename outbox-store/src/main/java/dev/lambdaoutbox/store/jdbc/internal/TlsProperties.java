package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.DatabaseTls;
import dev.lambdaoutbox.store.config.JdbcUrls;
import dev.lambdaoutbox.store.config.MysqlLegacyTlsFlags;
import java.nio.file.Path;
import java.util.List;
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
 *       over them, and one turning off what it needs is refused ({@link
 *       MysqlLegacyTlsFlags#check}).
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

  private static final List<String> MYSQL_TRUST =
      List.of("trustCertificateKeyStoreUrl", "fallbackToSystemTrustStore");

  private TlsProperties() {}

  /**
   * The properties to add for {@code jdbcUrl}; empty when the URL is to be used as written.
   *
   * @throws ConfigurationException as {@link MysqlLegacyTlsFlags#check} does
   */
  public static Properties forUrl(SqlDialect dialect, String jdbcUrl, DatabaseTls tls) {
    Properties p = new Properties();
    boolean postgres = dialect == SqlDialect.POSTGRESQL;
    boolean explicitMode = setsAny(jdbcUrl, postgres ? POSTGRES_MODE : List.of(MYSQL_MODE));
    if (!explicitMode && JdbcUrls.onLoopback(jdbcUrl)) {
      return p;
    }
    DatabaseTls.Mode mode = explicitMode ? null : tls.mode();
    if (mode != null && !postgres && MysqlLegacyTlsFlags.keepAtLeast(jdbcUrl, mode)) {
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
