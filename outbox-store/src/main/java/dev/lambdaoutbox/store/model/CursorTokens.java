package dev.lambdaoutbox.store.model;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/** The opaque tokens cursors travel as: URL-safe base64 of a versioned text. */
public final class CursorTokens {
  /** The longest token {@link #decode} reads. */
  public static final int MAX_LENGTH = 200;

  private CursorTokens() {}

  /** The token for {@code prefix} followed by {@code plain}. */
  public static String encode(String prefix, String plain) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((prefix + plain).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The text after {@code prefix} in {@code token}; empty when the token is not base64 of a text
   * starting with {@code prefix} (then {@link #encode} did not make it, with this prefix).
   */
  public static Optional<String> decode(String token, String prefix) {
    if (token == null || token.isEmpty() || token.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    try {
      String plain = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      return plain.startsWith(prefix)
          ? Optional.of(plain.substring(prefix.length()))
          : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // not base64: not one of our tokens
    }
  }
}
