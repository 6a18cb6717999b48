package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.dialect.KeyHead;
import dev.lambdaoutbox.store.dialect.OutboxSql;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fair ordered claim: which aggregates' heads a claim takes. It walks the key index from a
 * cursor kept by this store (one per poller), wrapping round to the first key, so one aggregate
 * with a burst of events gives one head per claim like every other, and every aggregate's head is
 * reached within one round of keys. A claim stops walking when it has its limit of ready heads,
 * when it is back where it started (a whole round), or after {@link #MAX_PAGES} statements of
 * {@link OutboxSql#scan} keys each; the next claim carries on from where this one left off. The
 * walk reads without locking; the heads it chose are then locked and checked again in one statement
 * ({@link OutboxSql#claimHeads}).
 */
final class KeyRotation {
  /** Statements of the key walk per claim, at most. */
  static final int MAX_PAGES = 4;

  private final AtomicReference<KeyHead.Key> cursor = new AtomicReference<>();

  /** The aggregates visited per claim of {@code limit}, at most. */
  static int maxKeys(int limit) {
    return MAX_PAGES * OutboxSql.scan(limit);
  }

  /** Claims up to {@code limit} heads, walking on from the cursor. */
  Claim claim(
      SqlSession s, OutboxSql dialect, String owner, int limit, Instant at, Instant leaseEnd) {
    KeyHead.Key start = cursor.get();
    KeyHead.Key from = start;
    KeyHead.Key upTo = null;
    boolean wrapped = start == null;
    KeyHead.Key last = start;
    KeyHead.Key lastTaken = null;
    List<String> heads = new ArrayList<>();
    int page = OutboxSql.scan(limit);
    for (int n = 0; n < MAX_PAGES && heads.size() < limit; n++) {
      List<KeyHead> keys = dialect.walkKeys(s, from, upTo, page, at);
      for (KeyHead key : keys) {
        if (heads.size() == limit) {
          break;
        }
        last = key.key();
        if (key.ready()) {
          heads.add(key.headId());
          lastTaken = key.key();
        }
      }
      if (keys.size() < page) {
        // The range ended: the last key, or back where this claim started.
        if (wrapped) {
          break;
        }
        wrapped = true;
        from = null;
        upTo = start;
      } else {
        from = last;
      }
    }
    cursor.set(heads.size() == limit ? lastTaken : last);
    return heads.isEmpty()
        ? Claim.of(List.of())
        : dialect.claimHeads(s, owner, heads, at, leaseEnd);
  }
}
