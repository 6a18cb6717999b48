package dev.lambdaoutbox.store.model.rewind;

import dev.lambdaoutbox.store.model.CursorTokens;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Where a rewind stands between its steps: the rewind's id, the last sent row it walked past (its
 * {@code sent_at}, then its id; {@link #NO_ID} for "every row sent at that time is still ahead"),
 * when its next copy may be due, how many it has copied, and a fingerprint of the range,
 * destination and rate it was started with. Operators see it only as an opaque token ({@link
 * #encode()}) and send it back unchanged with the same request.
 *
 * @param nextDueAt the earliest due time of the next step's copies: the pace goes on from where the
 *     previous step's schedule ends
 */
public record RewindCursor(
    UUID rewindId,
    Instant afterAt,
    UUID afterId,
    Instant nextDueAt,
    long copied,
    String fingerprint) {
  /** Sorts before every id: a position before every row sent at {@code afterAt}. */
  public static final UUID NO_ID = new UUID(0, 0);

  private static final String PREFIX = "rw1|";

  public RewindCursor {
    Objects.requireNonNull(rewindId, "rewindId");
    Objects.requireNonNull(afterAt, "afterAt");
    Objects.requireNonNull(afterId, "afterId");
    Objects.requireNonNull(nextDueAt, "nextDueAt");
    Objects.requireNonNull(fingerprint, "fingerprint");
  }

  /** The opaque token: URL-safe base64 of a versioned text, times in epoch microseconds. */
  public String encode() {
    return CursorTokens.encode(
        PREFIX,
        rewindId
            + "|"
            + micros(afterAt)
            + "|"
            + afterId
            + "|"
            + micros(nextDueAt)
            + "|"
            + copied
            + "|"
            + fingerprint);
  }

  /** The cursor a token stands for; empty when it is not a token {@link #encode()} made. */
  public static Optional<RewindCursor> decode(String token) {
    return CursorTokens.decode(token, PREFIX).flatMap(RewindCursor::parse);
  }

  private static Optional<RewindCursor> parse(String plain) {
    String[] p = plain.split("\\|", -1);
    if (p.length != 6 || p[0].length() != 36 || p[2].length() != 36 || p[5].isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new RewindCursor(
              UUID.fromString(p[0]),
              instant(Long.parseLong(p[1])),
              UUID.fromString(p[2]),
              instant(Long.parseLong(p[3])),
              Long.parseLong(p[4]),
              p[5]));
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // not numbers or not UUIDs: not one of our tokens
    }
  }

  private static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000);
  }
}
