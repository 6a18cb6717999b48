package dev.lambdaoutbox.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;

/**
 * A self-signed server certificate for one host name and its private key, as PEM files a PostgreSQL
 * server loads ({@code ssl_cert_file}, {@code ssl_key_file}); the certificate file is also what a
 * client given it as its CA trusts. Made with the JDK's own {@code keytool}, so the test needs
 * nothing beyond the JDK.
 */
record SelfSignedCertificate(Path certificate, Path key) {
  private static final String PASSWORD = "changeit";

  static SelfSignedCertificate forHost(String host, Path dir) throws Exception {
    Path store = dir.resolve(host + ".p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=" + host,
                "-ext",
                "SAN=dns:" + host,
                "-validity",
                "2",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD)
            .redirectErrorStream(true)
            .start();
    String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (keytool.waitFor() != 0) {
      throw new IllegalStateException("keytool failed: " + output);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASSWORD.toCharArray());
    }
    Key key = ks.getKey("server", PASSWORD.toCharArray());
    Path certificate =
        Files.writeString(
            dir.resolve(host + ".crt"),
            pem("CERTIFICATE", ks.getCertificate("server").getEncoded()));
    Path keyFile =
        Files.writeString(dir.resolve(host + ".key"), pem("PRIVATE KEY", key.getEncoded()));
    return new SelfSignedCertificate(certificate, keyFile);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** Lets {@code owner} (the server's user) read both files, the key as PostgreSQL demands. */
  void handTo(java.nio.file.attribute.UserPrincipal owner) throws IOException {
    for (Path file : List.of(certificate, key)) {
      Files.setOwner(file, owner);
    }
    Files.setPosixFilePermissions(
        key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(
        certificate, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
  }
}
