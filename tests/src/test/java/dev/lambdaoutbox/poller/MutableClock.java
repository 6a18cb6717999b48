package dev.lambdaoutbox.poller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the test moves by hand: leases run out and backoffs pass without sleeping. */
final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;

  MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  void advance(Duration by) {
    now.updateAndGet(t -> t.plus(by));
  }

  void set(Instant instant) {
    now.set(instant);
  }

  /**
   * Moves the clock to {@code instant}, unless it is there or beyond already: what a thread
   * sleeping until then sees (threads waiting at once wait together).
   */
  void atLeast(Instant instant) {
    now.accumulateAndGet(instant, (a, b) -> a.isAfter(b) ? a : b);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the tests use UTC");
  }
}
