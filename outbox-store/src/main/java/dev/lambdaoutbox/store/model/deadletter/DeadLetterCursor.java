package dev.lambdaoutbox.store.model.deadletter;

import dev.lambdaoutbox.store.model.CursorTokens;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
    return CursorTokens.encode(PREFIX, deadAt + "|" + id);
  }

  /** The cursor a token stands for; empty when it is not a token {@link #encode()} made. */
  public static Optional<DeadLetterCursor> decode(String token) {
    return CursorTokens.decode(token, PREFIX).flatMap(DeadLetterCursor::parse);
  }

  private static Optional<DeadLetterCursor> parse(String plain) {
    String[] parts = plain.split("\\|", -1);
    if (parts.length != 2 || parts[1].length() != 36) {
      return Optional.empty();
    }
    try {
      return Optional.of(new DeadLetterCursor(Instant.parse(parts[0]), UUID.fromString(parts[1])));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      return Optional.empty(); // not a time or not a UUID: not one of our tokens
    }
  }
}
