package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.testing.ForwardingOutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The claim size a run asks the real PostgreSQL store for: growing while a backlog fills each
 * claim, back to {@code OUTBOX_BATCH_SIZE} once it is drained, so an outbox that is nearly empty is
 * claimed a few rows at a time. Sizes of 10 up to 80 keep the backlog small.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerClaimSizeTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("claimsize");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  /** The real store, noting the limit of each claim and how many rows it took. */
  private static final class AskedStore extends ForwardingOutboxStore {
    final List<int[]> claims = new CopyOnWriteArrayList<>();

    AskedStore(OutboxStore store) {
      super(store);
    }

    @Override
    public Claim claim(String owner, int limit, Instant now, Duration lease) {
      Claim claim = super.claim(owner, limit, now, lease);
      claims.add(new int[] {limit, claim.size()});
      return claim;
    }

    List<Integer> asked() {
      return claims.stream().map(c -> c[0]).toList();
    }
  }

  private AskedStore store(PollerConfig config) {
    return new AskedStore(bed.store(config));
  }

  @Test
  void backlog_isDrainedInGrowingClaims_thenANearlyEmptyOutboxIsClaimedAtTheFirstSize() {
    String queue = bed.queue("grow");
    bed.appendEvents("backlog", 400);
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_BATCH_SIZE", "10",
            "OUTBOX_MAX_BATCH_SIZE", "80");
    AskedStore store = store(config);

    PollSummary summary = bed.invoke(bed.handler(config, store, bed.publisher(config)));

    assertThat(summary.published()).isEqualTo(400);
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(store.asked())
        .as(
            "the first size twice (the second claim is made before the first round's pace is"
                + " known), doubling while full up to the largest: 10+10+20+40+80x4 = 400 rows;"
                + " the claim after (empty) was made ahead at 80, and the one after that, as it ran"
                + " beside a recording, is back at the first size")
        .containsExactly(10, 10, 20, 40, 80, 80, 80, 80, 80, 10);

    bed.appendEvents("trickle", 3);
    AskedStore next = store(config);
    PollSummary trickle = bed.invoke(bed.handler(config, next, bed.publisher(config)));

    assertThat(trickle.published()).isEqualTo(3);
    assertThat(next.asked()).as("a nearly empty outbox").isNotEmpty().containsOnly(10);
  }

  @Test
  void equalSizes_claimAlwaysThatMany() {
    bed.appendEvents("fixed", 100);
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", bed.queue("fixed"),
            "OUTBOX_BATCH_SIZE", "20",
            "OUTBOX_MAX_BATCH_SIZE", "20");
    AskedStore store = store(config);

    PollSummary summary = bed.invoke(bed.handler(config, store, bed.publisher(config)));

    assertThat(summary.published()).isEqualTo(100);
    assertThat(store.asked()).hasSizeGreaterThanOrEqualTo(6).containsOnly(20);
  }
}
