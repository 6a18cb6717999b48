package dev.lambdaoutbox.store.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Locale;
import java.util.Optional;

/**
 * How a JDBC connection to a database that is not on loopback is protected ({@code OUTBOX_DB_TLS},
 * {@code OUTBOX_DB_TLS_CA_FILE}, declared in {@link DatabaseVariables}): verified (the default),
 * encrypted only, or in the clear, trusting the CAs of a PEM file or the JVM's trust store. A CA
 * file is read at start-up and refused unless it holds a certificate.
 *
 * <p>A URL that chooses its own mode ({@code sslmode}/{@code ssl} for PostgreSQL, {@code sslMode}
 * for MySQL Connector/J) is used as written; Connector/J's legacy flags ({@code useSSL}, {@code
 * requireSSL}, {@code verifyServerCertificate}) never lower the mode, and one that turns off what
 * it needs is refused at start-up; a database on loopback gets what the URL says and nothing more.
 * {@code dev.lambdaoutbox.store.jdbc.internal.TlsProperties} turns this into driver properties.
 */
public record DatabaseTls(Mode mode, Optional<Path> caFile) {
  /** The variables' names, for messages, as {@link DatabaseVariables} declares them. */
  public static final String TLS = DatabaseVariables.TLS.name();

  public static final String CA_FILE = DatabaseVariables.TLS_CA_FILE.name();

  /** The protection asked for, named as PostgreSQL's {@code sslmode} names it. */
  public enum Mode {
    VERIFY_FULL("verify-full"),
    REQUIRE("require"),
    DISABLE("disable");

    private final String text;

    Mode(String text) {
      this.text = text;
    }

    public String text() {
      return text;
    }

    static Mode parse(String text) {
      for (Mode mode : values()) {
        if (mode.text.equals(text.toLowerCase(Locale.ROOT))) {
          return mode;
        }
      }
      return null;
    }
  }

  private static final DatabaseTls DEFAULTS = new DatabaseTls(Mode.VERIFY_FULL, Optional.empty());

  /** Verify the certificate against the JVM's trust store: what an unset environment gives. */
  public static DatabaseTls defaults() {
    return DEFAULTS;
  }

  public static DatabaseTls fromEnvironment(EnvironmentReader env) {
    Mode mode = Mode.parse(env.choice(DatabaseVariables.TLS));
    Optional<Path> caFile =
        env.optional(DatabaseVariables.TLS_CA_FILE).map(DatabaseTls::readableCaFile);
    return new DatabaseTls(mode, caFile);
  }

  /** The file, once it is known to hold at least one X.509 certificate. */
  private static Path readableCaFile(String name) {
    Path path;
    try {
      path = Path.of(name);
    } catch (InvalidPathException e) {
      throw new ConfigurationException(CA_FILE, "'" + name + "' is not a file path");
    }
    try (InputStream in = Files.newInputStream(path)) {
      if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
        throw new ConfigurationException(
            CA_FILE, "'" + name + "' holds no certificate; give a PEM file of CA certificates");
      }
    } catch (IOException e) {
      throw new ConfigurationException(
          CA_FILE,
          "'"
              + name
              + "' cannot be read ("
              + e.getClass().getSimpleName()
              + "); give the path of a PEM file of CA certificates that the function can read, e.g."
              + " /opt/rds-ca/global-bundle.pem from a layer");
    } catch (CertificateException e) {
      throw new ConfigurationException(
          CA_FILE, "'" + name + "' is not a PEM file of certificates (" + e.getMessage() + ")", e);
    }
    return path;
  }
}
