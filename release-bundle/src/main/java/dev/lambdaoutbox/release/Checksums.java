package dev.lambdaoutbox.release;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The checksum files Maven Central takes beside every file: {@code .md5} and {@code .sha1} are
 * required, {@code .sha256} and {@code .sha512} accepted; each holds the lowercase hex digest.
 */
final class Checksums {
  /** Extension and JCA algorithm, required ones first. */
  static final List<String[]> ALL =
      List.of(
          new String[] {"md5", "MD5"},
          new String[] {"sha1", "SHA-1"},
          new String[] {"sha256", "SHA-256"},
          new String[] {"sha512", "SHA-512"});

  static final List<String> REQUIRED = List.of("md5", "sha1");

  private Checksums() {}

  static String hex(String extension, byte[] content) {
    for (String[] algorithm : ALL) {
      if (algorithm[0].equals(extension)) {
        try {
          return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm[1]).digest(content));
        } catch (NoSuchAlgorithmException e) {
          throw new IllegalStateException(algorithm[1] + " is missing from this JDK", e);
        }
      }
    }
    throw new IllegalArgumentException("not a checksum extension: " + extension);
  }

  static boolean isChecksum(String fileName) {
    return ALL.stream().anyMatch(a -> fileName.endsWith("." + a[0]));
  }
}
