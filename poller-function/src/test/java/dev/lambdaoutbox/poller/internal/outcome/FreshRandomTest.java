package dev.lambdaoutbox.poller.internal.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SnapStart restores many sandboxes from one snapshot of an initialised poller. A snapshot cannot
 * be taken outside Lambda (or a CRaC JVM), so this copies the poller's one piece of random state,
 * its jitter source, exactly as a snapshot would (by serialization), and runs on each copy the hook
 * CRaC runs after a restore.
 */
class FreshRandomTest {
  private static final Duration BASE = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofMinutes(15);

  @Test
  void twoRestoredCopiesOfOneInitialisedPoller_drawDifferentDelays() throws Exception {
    FreshRandom jitter = initialised();
    FreshRandom first = copy(jitter);
    FreshRandom second = copy(jitter);

    first.afterRestore(null);
    second.afterRestore(null);

    assertThat(delays(first)).isNotEqualTo(delays(second));
  }

  @Test
  void copiesWithoutTheRestoreHook_drawTheSameDelays_whichIsWhatTheHookPrevents() throws Exception {
    FreshRandom jitter = initialised();

    assertThat(delays(copy(jitter))).isEqualTo(delays(copy(jitter)));
  }

  @Test
  void aSnapshotTakenAfterTheCheckpointHook_holdsNoSeed() throws Exception {
    FreshRandom jitter = initialised();

    jitter.beforeCheckpoint(null);

    assertThat(delays(copy(jitter))).isNotEqualTo(delays(copy(jitter)));
  }

  @Test
  void delays_stayWithinTheBackoffsBounds() {
    Backoff backoff = new Backoff(BASE, MAX, new FreshRandom());
    for (int retry = 1; retry <= 12; retry++) {
      Duration ceiling = backoff.ceiling(retry);
      assertThat(backoff.delay(retry)).isBetween(ceiling.dividedBy(2), ceiling);
    }
  }

  /** A jitter source that has drawn already, as the poller's may before its snapshot. */
  private static FreshRandom initialised() {
    FreshRandom jitter = new FreshRandom();
    new Backoff(BASE, MAX, jitter).delay(3);
    return jitter;
  }

  /** Twenty delays of the tenth retry (256 s to 512 s, to the millisecond). */
  private static List<Duration> delays(FreshRandom jitter) {
    Backoff backoff = new Backoff(BASE, MAX, jitter);
    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      delays.add(backoff.delay(10));
    }
    return delays;
  }

  private static FreshRandom copy(FreshRandom jitter) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(jitter);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (FreshRandom) in.readObject();
    }
  }
}
