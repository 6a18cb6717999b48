package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.model.OutboxStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A PEM file of CA certificates as the PKCS12 trust store MySQL Connector/J reads ({@code
 * trustCertificateKeyStoreUrl}: the driver takes no PEM), written once per JVM to a temporary file
 * (in Lambda, under {@code /tmp}). It holds public certificates only; its password guards nothing
 * secret and is fixed.
 */
final class TrustStoreFile {
  static final String TYPE = "PKCS12";
  static final String PASSWORD = "lambda-outbox";

  private static final Map<Path, Path> WRITTEN = new ConcurrentHashMap<>();

  private TrustStoreFile() {}

  /** The trust store holding every certificate of {@code pem}. */
  static Path of(Path pem) {
    return WRITTEN.computeIfAbsent(pem.toAbsolutePath(), TrustStoreFile::write);
  }

  private static Path write(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      KeyStore store = KeyStore.getInstance(TYPE);
      store.load(null, null);
      int n = 0;
      for (Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + n++, certificate);
      }
      Path file = Files.createTempFile("outbox-db-ca-", ".p12");
      file.toFile().deleteOnExit();
      try (OutputStream out = Files.newOutputStream(file)) {
        store.store(out, PASSWORD.toCharArray());
      }
      return file;
    } catch (IOException | GeneralSecurityException e) {
      throw new OutboxStoreException(
          "could not turn the CA file " + pem + " into a trust store for MySQL Connector/J: " + e,
          e);
    }
  }
}
