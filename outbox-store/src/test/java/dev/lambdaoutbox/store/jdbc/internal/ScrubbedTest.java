package dev.lambdaoutbox.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** A driver's exception that quotes the URL's credentials is replaced by a scrubbed copy. */
class ScrubbedTest {
  private static final String URL = "jdbc:mysql://app:Hq4Zr8Wm@db.internal:3306/app";

  @Test
  void anExceptionQuotingTheUrl_isCopiedWithout_itsCredentials_keepingWhatClassifiesIt() {
    SQLException driver = new SQLException("No suitable driver found for " + URL, "08001", 0);
    driver.initCause(new ConnectException("near ':Hq4Zr8Wm@db' refused"));
    driver.addSuppressed(new IllegalStateException("retry of " + URL));

    SQLException scrubbed = Scrubbed.of(driver, URL);

    assertThat(printed(scrubbed))
        .doesNotContain("Hq4Zr8Wm")
        .contains("java.sql.SQLException: No suitable driver found for jdbc:mysql://app:***@db")
        .contains("java.net.ConnectException: near ':***@db' refused")
        .contains("java.lang.IllegalStateException: retry of jdbc:mysql://app:***@db");
    assertThat(scrubbed.getSQLState()).isEqualTo("08001");
    assertThat(scrubbed.getStackTrace()).isEqualTo(driver.getStackTrace());
  }

  @Test
  void anExceptionQuotingNothing_isKeptAsItIs() {
    SQLException driver = new SQLException("Connection refused", "08001");
    assertThat((Object) Scrubbed.of(driver, URL)).isSameAs(driver);
  }

  private static String printed(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }
}
