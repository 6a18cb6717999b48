package dev.lambdaoutbox.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.DatabaseTls;
import dev.lambdaoutbox.store.config.DatabaseTls.Mode;
import dev.lambdaoutbox.store.config.MysqlLegacyTlsFlags;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Which TLS a connection gets: verified by default to any database not on loopback, the URL's own
 * choice respected, loopback left as written, the CA file given to each driver in its own terms.
 */
class TlsPropertiesTest {
  private static final DatabaseTls DEFAULT = DatabaseTls.defaults();

  private static Map<Object, Object> pg(String url, DatabaseTls tls) {
    return TlsProperties.forUrl(SqlDialect.POSTGRESQL, url, tls);
  }

  private static Map<Object, Object> mysql(String url, DatabaseTls tls) {
    return TlsProperties.forUrl(SqlDialect.MYSQL, url, tls);
  }

  @Test
  void aRemoteDatabase_isVerifiedByDefault_againstTheJvmsTrustStore() {
    assertThat(pg("jdbc:postgresql://db.cluster-x.eu-west-1.rds.amazonaws.com:5432/app", DEFAULT))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "sslmode", "verify-full",
                "sslfactory", "org.postgresql.ssl.DefaultJavaSSLFactory"));
    assertThat(mysql("jdbc:mysql://10.0.3.7:3306/app", DEFAULT))
        .containsExactlyEntriesOf(Map.of("sslMode", "VERIFY_IDENTITY"));
  }

  @Test
  void aLoopbackDatabase_getsNothing_soTheTestBedStaysPlain() {
    for (String host : new String[] {"localhost", "127.0.0.1", "[::1]"}) {
      assertThat(pg("jdbc:postgresql://" + host + ":5432/outbox", DEFAULT)).as(host).isEmpty();
      assertThat(mysql("jdbc:mysql://" + host + ":3306/outbox", DEFAULT)).as(host).isEmpty();
    }
    assertThat(pg("jdbc:postgresql:outbox", DEFAULT)).isEmpty();
  }

  @Test
  void oneRemoteHostAmongLoopbackOnes_makesTheWholeUrlRemote() {
    assertThat(pg("jdbc:postgresql://127.0.0.1:5432,db2:5432/app", DEFAULT))
        .containsEntry("sslmode", "verify-full");
  }

  @Test
  void theUrlsOwnMode_isRespected_andItsTrustToo() {
    assertThat(pg("jdbc:postgresql://db/app?sslmode=disable", DEFAULT))
        .doesNotContainKey("sslmode")
        .containsEntry("sslfactory", "org.postgresql.ssl.DefaultJavaSSLFactory");
    assertThat(pg("jdbc:postgresql://db/app?ssl=true&sslrootcert=/opt/ca.pem", DEFAULT)).isEmpty();
    assertThat(mysql("jdbc:mysql://db/app?sslMode=REQUIRED", DEFAULT)).isEmpty();
    assertThat(mysql("jdbc:mysql://db/app?sslMode=DISABLED&useSSL=false", DEFAULT)).isEmpty();
  }

  /**
   * Connector/J's legacy flags that ask for TLS map to weaker modes than verify-full (useSSL=true
   * alone to PREFERRED, which falls back to plain text): sslMode, which the driver obeys over them,
   * keeps the configured mode.
   */
  @Test
  void mysqlLegacyFlagsAskingForTls_keepTheConfiguredMode() {
    for (String flags :
        new String[] {
          "useSSL=true",
          "requireSSL=true",
          "verifyServerCertificate=true",
          "useSSL=TRUE&requireSSL=yes&verifyServerCertificate=true"
        }) {
      assertThat(mysql("jdbc:mysql://db/app?" + flags, DEFAULT))
          .as(flags)
          .containsExactlyEntriesOf(Map.of("sslMode", "VERIFY_IDENTITY"));
    }
    DatabaseTls require = new DatabaseTls(Mode.REQUIRE, Optional.empty());
    assertThat(mysql("jdbc:mysql://db/app?useSSL=true", require))
        .containsExactlyEntriesOf(Map.of("sslMode", "REQUIRED"));
    assertThat(mysql("jdbc:mysql://db/app?verifyServerCertificate=true", require))
        .as("stricter than the configured mode: as written")
        .isEmpty();
    DatabaseTls disable = new DatabaseTls(Mode.DISABLE, Optional.empty());
    assertThat(mysql("jdbc:mysql://db/app?useSSL=true", disable)).isEmpty();
  }

  /** A legacy flag turning off what the configured mode needs fails, naming the flag. */
  @Test
  void mysqlLegacyFlagsTurningTlsOff_failStartUpNamingTheFlag() {
    DatabaseTls require = new DatabaseTls(Mode.REQUIRE, Optional.empty());
    for (String[] refused :
        new String[][] {
          {"useSSL=false", "useSSL=false", "verify-full"},
          {"useSSL=no&requireSSL=true", "useSSL=no", "verify-full"},
          {"requireSSL=false", "requireSSL=false", "verify-full"},
          {
            "useSSL=true&verifyServerCertificate=false",
            "verifyServerCertificate=false",
            "verify-full"
          },
          {"useSSL=maybe", "useSSL=maybe", "true, false, yes or no"},
        }) {
      String url = "jdbc:mysql://db/app?" + refused[0];
      ConfigurationException e =
          catchThrowableOfType(
              ConfigurationException.class,
              () -> MysqlLegacyTlsFlags.check(SqlDialect.MYSQL, url, DEFAULT));
      assertThat(e).as(refused[0]).isNotNull();
      assertThat(e.variable()).isEqualTo("OUTBOX_JDBC_URL");
      assertThat(e).as(refused[0]).hasMessageContaining(refused[1], refused[2]);
      assertThat(catchThrowableOfType(ConfigurationException.class, () -> mysql(url, DEFAULT)))
          .as("and refused when connecting too: " + refused[0])
          .isNotNull();
    }
    assertThat(
            catchThrowableOfType(
                ConfigurationException.class,
                () ->
                    MysqlLegacyTlsFlags.check(
                        SqlDialect.MYSQL, "jdbc:mysql://db/app?useSSL=false", require)))
        .hasMessageContaining("useSSL=false", "OUTBOX_DB_TLS", "require");
    assertThat(mysql("jdbc:mysql://db/app?verifyServerCertificate=false", require))
        .containsExactlyEntriesOf(Map.of("sslMode", "REQUIRED"));
    DatabaseTls disable = new DatabaseTls(Mode.DISABLE, Optional.empty());
    MysqlLegacyTlsFlags.check(SqlDialect.MYSQL, "jdbc:mysql://db/app?useSSL=false", disable);
    assertThat(mysql("jdbc:mysql://db/app?useSSL=false", disable)).isEmpty();
    MysqlLegacyTlsFlags.check(SqlDialect.MYSQL, "jdbc:mysql://127.0.0.1/app?useSSL=false", DEFAULT);
    assertThat(mysql("jdbc:mysql://localhost/app?useSSL=false", DEFAULT))
        .as("loopback: as written")
        .isEmpty();
  }

  @Test
  void turningVerificationOff_isTheNamedSetting() {
    DatabaseTls require = new DatabaseTls(Mode.REQUIRE, Optional.empty());
    DatabaseTls disable = new DatabaseTls(Mode.DISABLE, Optional.empty());

    assertThat(pg("jdbc:postgresql://db/app", require))
        .containsExactlyEntriesOf(Map.of("sslmode", "require"));
    assertThat(mysql("jdbc:mysql://db/app", require))
        .containsExactlyEntriesOf(Map.of("sslMode", "REQUIRED"));
    assertThat(pg("jdbc:postgresql://db/app", disable))
        .containsExactlyEntriesOf(Map.of("sslmode", "disable"));
    assertThat(mysql("jdbc:mysql://db/app", disable))
        .containsExactlyEntriesOf(Map.of("sslMode", "DISABLED"));
  }

  @Test
  void aCaFile_isPostgresSslRootCert_andAPkcs12TrustStoreForMysql() throws Exception {
    Path pem = Path.of(TlsPropertiesTest.class.getResource("/test-ca.pem").toURI());
    DatabaseTls withCa = new DatabaseTls(Mode.VERIFY_FULL, Optional.of(pem));

    assertThat(pg("jdbc:postgresql://db/app", withCa))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("sslmode", "verify-full", "sslrootcert", pem.toString()));
    Properties my = TlsProperties.forUrl(SqlDialect.MYSQL, "jdbc:mysql://db/app", withCa);
    assertThat(my)
        .containsEntry("sslMode", "VERIFY_IDENTITY")
        .containsEntry("trustCertificateKeyStoreType", "PKCS12");
    java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
    try (var in =
        java.net.URI.create(my.getProperty("trustCertificateKeyStoreUrl")).toURL().openStream()) {
      store.load(in, my.getProperty("trustCertificateKeyStorePassword").toCharArray());
    }
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.isCertificateEntry(store.aliases().nextElement())).isTrue();
  }
}
