package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A secret the functions cannot read is refused naming the field at fault, and nothing the refusal
 * carries (message, causes, suppressed exceptions, their {@code toString} and stack trace) holds
 * any piece of the secret.
 */
class SecretLoginTest {
  private static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:fn-AbCd";
  private static final String PASSWORD = "Qx7vTz9kLmW2";

  @Test
  void aWellFormedSecret_givesItsLogin() {
    DatabaseCredentials login =
        SecretLogin.parse(ARN, "{\"username\":\"outbox_fn\",\"password\":\"" + PASSWORD + "\"}");

    assertThat(login.username()).isEqualTo("outbox_fn");
    assertThat(login.password()).isEqualTo(PASSWORD);
    assertThat(login.toString()).doesNotContain(PASSWORD);
  }

  /** Each row: the secret's text (PW stands for the password), then what the refusal names. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"username\":\"outbox_fn\",\"password\":PW}                | not valid JSON (line 1",
        "{\"username\":\"outbox_fn\",\"password\":\"PW}                | not valid JSON",
        "{\"username\":\"outbox_fn\",\"password\":\"PW\",}             | not valid JSON",
        "{\"username\":\"outbox_fn\" \"password\":\"PW\"}              | not valid JSON",
        "username=outbox_fn password=PW                                  | not valid JSON",
        "PW                                                              | not valid JSON",
        "\"PW\"                                                          | is JSON a string, not an object",
        "[\"outbox_fn\",\"PW\"]                                          | is JSON an array, not an object",
        "{\"username\":\"outbox_fn\",\"pasword\":\"PW\"}               | has no 'password' field",
        "{\"user\":\"outbox_fn\",\"password\":\"PW\"}                  | has no 'username' field",
        "{\"username\":\"outbox_fn\",\"password\":[\"PW\"]}            | has a 'password' that is an array, not a string",
        "{\"username\":\"outbox_fn\",\"password\":{\"value\":\"PW\"}}  | has a 'password' that is an object, not a string",
        "{\"username\":\"outbox_fn\",\"password\":7PW}                 | not valid JSON",
        "{\"username\":{\"PW\":1},\"password\":\"x\"}                  | has a 'username' that is an object, not a string",
      })
  void anUnreadableSecret_isRefusedNamingTheField_withNoPieceOfTheSecret(
      String template, String named) {
    String secret = template.replace("PW", PASSWORD);

    ConfigurationException refused =
        catchThrowableOfType(ConfigurationException.class, () -> SecretLogin.parse(ARN, secret));

    assertThat(refused.variable()).isEqualTo(DatabaseSettings.SECRET_ARN);
    assertThat(refused.getMessage()).contains(ARN, named);
    assertThat(everythingItCarries(refused)).doesNotContain(piecesOf(PASSWORD));
  }

  @Test
  void aSecretWithoutText_isRefused() {
    for (String nothing : new String[] {null, "", "  "}) {
      assertThat(
              catchThrowableOfType(
                  ConfigurationException.class, () -> SecretLogin.parse(ARN, nothing)))
          .hasMessageContaining("holds no SecretString");
    }
  }

  /** The whole chain as a log would print it: each message, cause and suppressed exception. */
  static String everythingItCarries(Throwable e) {
    StringWriter out = new StringWriter();
    e.printStackTrace(new PrintWriter(out));
    StringBuilder all = new StringBuilder(out.toString());
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append('\n').append(t).append('\n').append(t.getLocalizedMessage());
      for (Throwable s : t.getSuppressed()) {
        all.append('\n').append(everythingItCarries(s));
      }
    }
    return all.toString();
  }

  /** Every four characters in a row of {@code secret}. */
  static String[] piecesOf(String secret) {
    List<String> pieces = new ArrayList<>();
    for (int i = 0; i + 4 <= secret.length(); i++) {
      pieces.add(secret.substring(i, i + 4));
    }
    return pieces.toArray(String[]::new);
  }
}
