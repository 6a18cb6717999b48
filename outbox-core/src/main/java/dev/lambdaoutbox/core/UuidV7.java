package dev.lambdaoutbox.core;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * UUID version 7 (RFC 9562): a 48-bit Unix millisecond timestamp, a 12-bit sequence, then 62 random
 * bits.
 *
 * <p>{@link #generate()} is monotonic within the JVM (RFC 9562, method 1): within one millisecond
 * the sequence counts up from a random start, so ids made one after another sort in the order they
 * were made, and events written together are claimed and published in that order. If the clock
 * steps back, or a millisecond runs out of sequence numbers, the id borrows the next millisecond
 * rather than going backwards.
 *
 * <p>The random bits come from {@link SecureRandom}, which stays unique across Lambda SnapStart
 * restores of one snapshot, where a generator seeded before the snapshot would repeat itself.
 */
public final class UuidV7 {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final long MAX_SEQUENCE = 0xFFF;

  private static final Object LOCK = new Object();
  private static long lastMillis = Long.MIN_VALUE;
  private static long sequence;

  private UuidV7() {}

  /** The next id: after every id this method returned before. */
  public static UUID generate() {
    long millis;
    long seq;
    synchronized (LOCK) {
      long now = System.currentTimeMillis();
      if (now > lastMillis) {
        lastMillis = now;
        sequence = RANDOM.nextInt(0x800); // leaves at least 2,048 more ids in this millisecond
      } else if (++sequence > MAX_SEQUENCE) {
        lastMillis++;
        sequence = 0;
      }
      millis = lastMillis;
      seq = sequence;
    }
    return of(millis, seq);
  }

  /**
   * An id for the given millisecond with a random sequence (no ordering within the millisecond).
   */
  public static UUID generate(long unixMillis) {
    return of(unixMillis, RANDOM.nextInt(0x1000));
  }

  private static UUID of(long unixMillis, long sequence) {
    long msb = (unixMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | (sequence & MAX_SEQUENCE);
    long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb);
  }
}
