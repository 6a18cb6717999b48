package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Credentials in a JDBC URL, in every form the two drivers accept, never printed. */
class JdbcUrlsTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:postgresql://db:5432/app?user=app&password=Pw1x | jdbc:postgresql://db:5432/app?user=app&password=***",
        "jdbc:postgresql://db/app?password=Pw1x&sslmode=require | jdbc:postgresql://db/app?password=***&sslmode=require",
        "jdbc:postgresql://db/app?sslpassword=Pw1x | jdbc:postgresql://db/app?sslpassword=***",
        "jdbc:mysql://app:Pw1x@db:3306/app | jdbc:mysql://app:***@db:3306/app",
        "jdbc:mysql://app:Pw1x@db1:3306,app:Pw2y@db2:3306/app | jdbc:mysql://app:***@db1:3306,app:***@db2:3306/app",
        "jdbc:mysql://address=(host=db)(user=app)(password=Pw1x)/app | jdbc:mysql://address=(host=db)(user=app)(password=***)/app",
        "jdbc:mysql://(host=db,port=3306,password=Pw1x)/app | jdbc:mysql://(host=db,port=3306,password=***)/app",
        "jdbc:mysql://db/app?PASSWORD=Pw1x;trustCertificateKeyStorePassword=Pw2y | jdbc:mysql://db/app?PASSWORD=***;trustCertificateKeyStorePassword=***",
        "jdbc:mysql://db/app?password1=Pw1x&password2=Pw2y | jdbc:mysql://db/app?password1=***&password2=***",
        "jdbc:postgresql://db:5432/app | jdbc:postgresql://db:5432/app",
        "jdbc:mysql://app:Pw1x@Pw2y@db:3306/app | jdbc:mysql://app:***@db:3306/app",
        "jdbc:mysql://app:Pw1x@@db/app?useSSL=true | jdbc:mysql://app:***@db/app?useSSL=true",
        "jdbc:mysql://app:Pw1x@a@db1:3306,app:Pw2y@b@db2:3306/app | jdbc:mysql://app:***@db1:3306,app:***@db2:3306/app",
        "jdbc:mysql://app:Pw1x:Pw2y@db/app | jdbc:mysql://app:***@db/app",
        "jdbc:mysql://app:Pw1x/Pw2y@db/app | jdbc:mysql://app:***@db/app",
        "jdbc:postgresql://app:Pw1x@Pw2y@db/app?sslmode=require | jdbc:postgresql://app:***@db/app?sslmode=require",
        "jdbc:postgresql://db/app?user=app&password=Pw1x@Pw2y | jdbc:postgresql://db/app?user=app&password=***",
        "jdbc:mysql://(host=db,user=app,password=Pw1x@Pw2y)/app | jdbc:mysql://(host=db,user=app,password=***)/app",
      })
  void redact_hidesEveryPasswordTheUrlCarries(String url, String redacted) {
    assertThat(JdbcUrls.redact(url)).isEqualTo(redacted);
    assertThat(JdbcUrls.redact(url)).doesNotContain("Pw1x", "Pw2y");
  }

  @Test
  void scrub_hidesTheUrlsSecretsWhereverATextQuotesThem() {
    String url = "jdbc:mysql://app:Pw1xQ@db:3306/app?password2=Pw2yZ";

    assertThat(JdbcUrls.scrub("No suitable driver found for " + url, url))
        .isEqualTo("No suitable driver found for " + JdbcUrls.redact(url));
    assertThat(JdbcUrls.scrub("failed to parse the connection string near ':Pw1xQ@db'", url))
        .isEqualTo("failed to parse the connection string near ':***@db'");
    assertThat(JdbcUrls.secrets(url)).containsExactly("Pw1xQ", "Pw2yZ");
  }

  /**
   * A password holding {@code @}: MySQL Connector/J refuses such a URL, quoting its authority
   * segment; the whole password is hidden there too, not only what comes before its {@code @}.
   */
  @Test
  void aPasswordHoldingAnAt_isHiddenWhole_inTheUrlAndInTheDriversMessage() {
    String url = "jdbc:mysql://app:Pw1x@Pw2y@db.internal:3306/app";

    assertThat(JdbcUrls.secrets(url)).containsExactly("Pw1x@Pw2y");
    assertThat(JdbcUrls.hosts(url)).containsExactly("db.internal");
    assertThat(
            JdbcUrls.scrub(
                "Malformed database URL, failed to parse the URL authority segment"
                    + " 'app:Pw1x@Pw2y@db.internal:3306'.",
                url))
        .isEqualTo(
            "Malformed database URL, failed to parse the URL authority segment"
                + " 'app:***@db.internal:3306'.");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:postgresql://db.internal:5432/app | db.internal",
        "jdbc:postgresql://localhost/app | localhost",
        "jdbc:postgresql:app | localhost",
        "jdbc:postgresql:///app | localhost",
        "jdbc:postgresql://[::1]:5432/app | [::1]",
        "jdbc:postgresql://127.0.0.1:5432,db2:5432/app | 127.0.0.1,db2",
        "jdbc:mysql://app:pw@db:3306/app | db",
        "jdbc:mysql://address=(host=db1)(port=3306),(host=db2,port=3307)/app | db1,db2",
      })
  void hosts_areReadFromEveryFormOfUrl(String url, String hosts) {
    assertThat(JdbcUrls.hosts(url)).containsExactly(hosts.split(","));
  }

  @Test
  void loopback_isDecidedFromTheTextAlone() {
    assertThat(JdbcUrls.isLoopback("localhost")).isTrue();
    assertThat(JdbcUrls.isLoopback("LOCALHOST")).isTrue();
    assertThat(JdbcUrls.isLoopback("127.0.0.1")).isTrue();
    assertThat(JdbcUrls.isLoopback("127.10.20.30")).isTrue();
    assertThat(JdbcUrls.isLoopback("[::1]")).isTrue();
    assertThat(JdbcUrls.isLoopback("::1")).isTrue();
    assertThat(JdbcUrls.isLoopback("127.0.0.1.nip.io")).isFalse();
    assertThat(JdbcUrls.isLoopback("db.internal")).isFalse();
    assertThat(JdbcUrls.isLoopback("10.0.0.5")).isFalse();
    assertThat(JdbcUrls.isLoopback("localhost.example.com")).isFalse();
  }

  @Test
  void parameters_areFoundInEveryForm_whateverTheirCase() {
    assertThat(JdbcUrls.hasParameter("jdbc:postgresql://db/app?sslmode=disable", "sslmode"))
        .isTrue();
    assertThat(JdbcUrls.hasParameter("jdbc:mysql://db/app?a=1&SSLMODE=DISABLED", "sslMode"))
        .isTrue();
    assertThat(JdbcUrls.hasParameter("jdbc:mysql://(host=db,sslMode=REQUIRED)/app", "sslMode"))
        .isTrue();
    assertThat(JdbcUrls.hasParameter("jdbc:postgresql://db/app?nosslmode=x", "sslmode")).isFalse();
    assertThat(JdbcUrls.hasParameter("jdbc:postgresql://sslmode/app", "sslmode")).isFalse();
  }
}
