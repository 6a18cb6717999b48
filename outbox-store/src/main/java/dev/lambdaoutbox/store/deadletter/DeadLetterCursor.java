package dev.lambdaoutbox.store.deadletter;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A position in the dead-letter listing, which runs oldest death first ({@code dead_at}, then
 * {@code id}): a page continues after the row the cursor names. Operators see it only as an opaque
 * token ({@link #encode()}).
 */
public record DeadLetterCursor(Instant deadAt, UUID id) {
  private static final String PREFIX = "v1|";

  public DeadLetterCursor {
    Objects.requireNonNull(deadAt, "deadAt");
    Objects.requireNonNull(id, "id");
  }

  /** The opaque token: URL-safe base64 of a versioned {@code dead_at|id} pair. */
  public String encode() {
    String plain = PREFIX + deadAt + "|" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /** The cursor a token stands for; empty when it is not a token {@link #encode()} made. */
  public static Optional<DeadLetterCursor> decode(String token) {
    if (token == null || token.isEmpty() || token.length() > 200) {
      return Optional.empty();
    }
    try {
      String plain = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (!plain.startsWith(PREFIX)) {
        return Optional.empty();
      }
      String[] parts = plain.substring(PREFIX.length()).split("\\|", -1);
      if (parts.length != 2 || parts[1].length() != 36) {
        return Optional.empty();
      }
      return Optional.of(new DeadLetterCursor(Instant.parse(parts[0]), UUID.fromString(parts[1])));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      return Optional.empty(); // not base64, not a time or not a UUID: not one of our tokens
    }
  }
}
