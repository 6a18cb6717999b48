package dev.lambdaoutbox.writer.internal;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/** UUID version 7 (RFC 9562): a 48-bit Unix millisecond timestamp, then 74 random bits. */
public final class UuidV7 {
  private static final SecureRandom SEEDS = new SecureRandom();
  private static final RandomGeneratorFactory<RandomGenerator> FACTORY =
      RandomGeneratorFactory.of("L64X128MixRandom");

  /**
   * One fast generator per thread, each seeded from the OS, so JVMs started together never collide.
   */
  private static final ThreadLocal<RandomGenerator> RANDOM =
      ThreadLocal.withInitial(() -> FACTORY.create(SEEDS.generateSeed(16)));

  private UuidV7() {}

  public static UUID generate() {
    return generate(System.currentTimeMillis());
  }

  public static UUID generate(long unixMillis) {
    RandomGenerator random = RANDOM.get();
    long msb = (unixMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | (random.nextLong() & 0x0FFFL);
    long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb);
  }
}
