package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.dialect.KeyHead;
import dev.lambdaoutbox.store.dialect.OutboxSql;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fair ordered claim: which aggregates' heads a claim takes. It walks the key index from a
 * cursor kept by this store (one per poller), wrapping round to the first key, so one aggregate
 * with a burst of events gives one head per claim like every other, and every aggregate's head is
 * reached within one round of keys. The walk reads without locking; the heads it chose are then
 * locked and checked again in one statement ({@link OutboxSql#claimHeads}). Where fewer were locked
 * than chosen (another claim took them meanwhile, or they are no longer heads), the walk goes on
 * for the rest. A claim stops when it has its limit, when its result budget in bytes is spent (the
 * next one then starts at the first head left out), when it is back where it started (a whole
 * round), or after {@link #MAX_PAGES} statements of {@link OutboxSql#scan} keys each; the next
 * claim carries on from where this one left off.
 */
final class KeyRotation {
  /** Pages of the key walk per claim, at most. */
  static final int MAX_PAGES = 4;

  private final AtomicReference<KeyHead.Key> cursor = new AtomicReference<>();

  /** The aggregates visited per claim of {@code limit}, at most. */
  static int maxKeys(int limit) {
    return MAX_PAGES * OutboxSql.scan(limit);
  }

  /** Claims up to {@code limit} heads, walking on from the cursor. */
  Claim claim(
      SqlSession s, OutboxSql dialect, String owner, int limit, Instant at, Instant leaseEnd) {
    Walk walk = new Walk(cursor.get(), OutboxSql.scan(limit));
    Claim claim = Claim.of(List.of());
    while (claim.size() < limit && !claim.stoppedAtBudget()) {
      List<String> heads = walk.readyHeads(s, dialect, limit - claim.size(), at);
      if (heads.isEmpty()) {
        break;
      }
      Claim more = dialect.claimHeads(s, owner, heads, at, leaseEnd);
      if (more.stoppedAtBudget()) {
        walk.backTo(heads, claimedIds(more));
      }
      claim = claim.plus(more);
    }
    cursor.set(walk.last);
    return claim;
  }

  /** The ids of the rows {@code claim} took, as the walk reads them. */
  private static Set<String> claimedIds(Claim claim) {
    Set<String> ids = new HashSet<>();
    claim.messages().forEach(m -> ids.add(m.id().toString()));
    claim.unreadable().forEach(u -> ids.add(u.rawId()));
    return ids;
  }

  /** One claim's walk round the keys, from {@code start}, in pages of {@code page} keys. */
  private static final class Walk {
    private final KeyHead.Key start;
    private final int page;
    private KeyHead.Key from;
    private KeyHead.Key upTo;
    private boolean wrapped;
    private boolean round;
    private int pages;
    private KeyHead.Key last;

    /** Per head chosen, by id: the key visited before its own (null: none), where to resume. */
    private final Map<String, KeyHead.Key> before = new HashMap<>();

    Walk(KeyHead.Key start, int page) {
      this.start = start;
      this.page = page;
      this.from = start;
      this.wrapped = start == null;
      this.last = start;
    }

    /**
     * The heads of the next {@code wanted} ready aggregates, or fewer where the walk came round or
     * spent its pages; each aggregate is visited once per walk.
     */
    List<String> readyHeads(SqlSession s, OutboxSql dialect, int wanted, Instant at) {
      List<String> heads = new ArrayList<>();
      while (heads.size() < wanted && !round && pages < MAX_PAGES) {
        pages++;
        List<KeyHead> keys = dialect.walkKeys(s, from, upTo, page, at);
        for (KeyHead key : keys) {
          if (heads.size() == wanted) {
            break;
          }
          if (key.ready()) {
            heads.add(key.headId());
            before.put(key.headId(), last);
          }
          last = key.key();
        }
        if (heads.size() == wanted) {
          from = last; // the keys past the last one taken come first next time
        } else if (keys.size() == page) {
          from = last;
        } else if (wrapped) {
          round = true; // back where this walk started
        } else {
          wrapped = true;
          from = null;
          upTo = start;
        }
      }
      return heads;
    }

    /**
     * A claim of {@code heads} stopped at its result budget, taking only {@code claimed}: the next
     * claim starts with the first head left (in key order), so it is not passed over for a round.
     */
    void backTo(List<String> heads, Set<String> claimed) {
      for (String head : heads) {
        if (!claimed.contains(head)) {
          last = before.get(head);
          return;
        }
      }
    }
  }
}
