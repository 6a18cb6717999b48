package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code OUTBOX_DB_TLS} and {@code OUTBOX_DB_TLS_CA_FILE} as the functions read them. */
class DatabaseTlsTest {
  private static DatabaseTls read(String... pairs) {
    Map<String, String> env = new java.util.HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return DatabaseTls.fromEnvironment(new EnvironmentReader(env));
  }

  @Test
  void unset_verifiesAgainstTheJvmsTrustStore() {
    assertThat(read()).isEqualTo(DatabaseTls.defaults());
    assertThat(read().mode()).isEqualTo(DatabaseTls.Mode.VERIFY_FULL);
    assertThat(read().caFile()).isEmpty();
  }

  @Test
  void eachMode_isReadByItsName() {
    assertThat(read("OUTBOX_DB_TLS", "require").mode()).isEqualTo(DatabaseTls.Mode.REQUIRE);
    assertThat(read("OUTBOX_DB_TLS", "DISABLE").mode()).isEqualTo(DatabaseTls.Mode.DISABLE);
  }

  @Test
  void anUnknownMode_isRefusedNamingTheVariableAndTheChoices() {
    ConfigurationException e =
        catchThrowableOfType(ConfigurationException.class, () -> read("OUTBOX_DB_TLS", "off"));
    assertThat(e.variable()).isEqualTo("OUTBOX_DB_TLS");
    assertThat(e).hasMessageContaining("'off'", "verify-full", "require", "disable");
  }

  @Test
  void aCaFile_mustHoldACertificate(@TempDir Path dir) throws Exception {
    Path pem = Path.of(DatabaseTlsTest.class.getResource("/test-ca.pem").toURI());
    assertThat(read("OUTBOX_DB_TLS_CA_FILE", pem.toString()).caFile()).isEqualTo(Optional.of(pem));

    Path missing = dir.resolve("global-bundle.pem");
    assertThat(
            catchThrowableOfType(
                ConfigurationException.class,
                () -> read("OUTBOX_DB_TLS_CA_FILE", missing.toString())))
        .hasMessageStartingWith("OUTBOX_DB_TLS_CA_FILE: '" + missing + "' cannot be read");

    Path text = Files.writeString(dir.resolve("ca.pem"), "not a certificate");
    assertThat(
            catchThrowableOfType(
                ConfigurationException.class, () -> read("OUTBOX_DB_TLS_CA_FILE", text.toString())))
        .extracting(ConfigurationException::variable)
        .isEqualTo("OUTBOX_DB_TLS_CA_FILE");
  }
}
