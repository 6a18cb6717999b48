package dev.lambdaoutbox.poller.internal.outcome;

import java.io.Serial;
import java.io.Serializable;
import java.security.SecureRandom;
import java.util.Random;
import java.util.random.RandomGenerator;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;

/**
 * The backoff's jitter source, fresh in every sandbox. A generator seeded while the function
 * initialises would be copied into the SnapStart snapshot, and every sandbox restored from it would
 * draw the same delays: rows that failed together in different sandboxes would come back together.
 * So this one is seeded from {@link SecureRandom} on first use, and seeded afresh on first use
 * after a restore: its CRaC hooks (register with {@link #register()}; nothing happens where CRaC is
 * absent) forget the generator before a snapshot and again after a restore.
 *
 * <p>Thread-safe. Serializable, as {@link Random} is: a copy holds the same state, as a snapshot
 * does.
 */
public final class FreshRandom implements RandomGenerator, Resource, Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private Random generator;

  /** Registers the CRaC hooks; keep a reference to this object, as CRaC holds it only weakly. */
  public FreshRandom register() {
    Core.getGlobalContext().register(this);
    return this;
  }

  @Override
  public synchronized long nextLong() {
    if (generator == null) {
      generator = new Random(new SecureRandom().nextLong());
    }
    return generator.nextLong();
  }

  /** Forgets the generator, so that no seed is in the snapshot. */
  @Override
  public synchronized void beforeCheckpoint(Context<? extends Resource> context) {
    generator = null;
  }

  /** Forgets the generator again: the first draw in this sandbox seeds a new one. */
  @Override
  public synchronized void afterRestore(Context<? extends Resource> context) {
    generator = null;
  }
}
