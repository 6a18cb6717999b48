package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The fair ordered claim: which aggregates' heads a claim takes. It walks the key index from the
 * cursor all pollers share ({@link #CURSOR}, a row of {@code outbox_claim_cursors}), wrapping round
 * to the first key, so one aggregate with a burst of events gives one head per claim like every
 * other, and every aggregate's head is reached within one round of keys, whichever poller or
 * container makes the claims. The walk reads without locking; the heads it chose are then locked
 * and checked again in one statement ({@link OutboxSql#claimHeads}). Where fewer were locked than
 * chosen (another claim took them meanwhile, or they are no longer heads), the walk goes on for the
 * rest. A claim stops when it has its limit, when its result budget in bytes is spent (the next one
 * then starts at the first head left out), when it is back where it started (a whole round), or
 * after {@link #MAX_PAGES} statements of {@link OutboxSql#scan} keys each (where claims reserve,
 * the first of as many keys as heads are wanted); the next claim, of any poller, carries on from
 * where this one left off ({@link Turn#record}).
 *
 * <p>The cursor costs a primary-key read before the walk and a single-row write as the claim's last
 * statement. Claims that read it at once walk the same keys, each skipping the heads the other
 * locked; the later write wins. Where claims reserve their aggregates first ({@link #reserve}), the
 * walk and the cursor's move are a short transaction holding the cursor's row, so concurrent claims
 * walk disjoint runs of aggregates.
 */
final class KeyRotation {
  /** Pages of the key walk per claim, at most. */
  static final int MAX_PAGES = 4;

  /**
   * The shared cursor's name: its row in {@code outbox_claim_cursors}, inserted by migration V9.
   */
  static final String CURSOR = "aggregate-walk";

  private KeyRotation() {}

  /** The aggregates visited per claim of {@code limit}, at most. */
  static int maxKeys(int limit) {
    return MAX_PAGES * OutboxSql.scan(limit);
  }

  /** One ordered claim: the heads it took, and where its walk started and stopped. */
  record Turn(Claim claim, KeyHead.Key start, KeyHead.Key end) {
    /**
     * Moves the shared cursor to where this walk stopped, unless that is where it started; the
     * claim's transaction's last statement.
     */
    void record(SqlSession s, OutboxSql dialect, Instant now) {
      if (!Objects.equals(start, end)) {
        dialect.moveClaimCursor(s, CURSOR, end, now);
      }
    }
  }

  /** Claims up to {@code limit} heads, walking on from the shared cursor. */
  static Turn claim(
      SqlSession s, OutboxSql dialect, String owner, int limit, Instant at, Instant leaseEnd) {
    return walkOn(
        s, dialect, dialect.claimCursor(s, CURSOR), Set.of(), false, owner, limit, at, leaseEnd);
  }

  /**
   * Claims up to {@code limit} heads, walking on from {@code start}, passing over the heads {@code
   * skip}; {@code reserving}: as a claim that reserves its aggregates walks ({@link
   * Walk#narrowFirstPage}).
   */
  private static Turn walkOn(
      SqlSession s,
      OutboxSql dialect,
      KeyHead.Key start,
      Set<String> skip,
      boolean reserving,
      String owner,
      int limit,
      Instant at,
      Instant leaseEnd) {
    Walk walk = new Walk(start, OutboxSql.scan(limit), skip, reserving);
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
    return new Turn(claim, start, walk.last);
  }

  /**
   * The aggregates a claim reserved before locking their heads ({@link #reserve}): the heads its
   * walk chose, ready when walked, and where the walk stopped, where the shared cursor now stands
   * unless a later reservation moved it on.
   */
  record Reservation(List<String> heads, KeyHead.Key end, Walk walk) {}

  /**
   * Reserves the next aggregates for a claim of up to {@code limit} heads, in a transaction of its
   * own: locks the shared cursor's row, walks on from it as {@link #claim} does (reads only), and
   * moves the cursor to where the walk stopped. The commit that follows releases the row, so
   * concurrent claims walk one after the other, each from where the one before stopped, and take
   * disjoint runs of aggregates; they lock and lease their heads side by side, in transactions of
   * their own ({@link #claimReserved}). Holding the row for the walk makes the walks take turns
   * rather than the whole claims; reading it without the lock, claims that start together walk the
   * same aggregates, and all but one find their heads taken and walk on for more.
   */
  static Reservation reserve(SqlSession s, OutboxSql dialect, int limit, Instant at) {
    KeyHead.Key start = dialect.lockClaimCursor(s, CURSOR);
    Walk walk = new Walk(start, OutboxSql.scan(limit), Set.of(), true);
    List<String> heads = walk.readyHeads(s, dialect, limit, at);
    KeyHead.Key end = walk.last;
    new Turn(Claim.of(List.of()), start, end).record(s, dialect, at);
    return new Reservation(heads, end, walk);
  }

  /**
   * Locks and leases the heads {@code reserved}, checking each again as it is locked ({@link
   * OutboxSql#claimHeads}). Where heads were taken meanwhile (locked or leased by another
   * transaction, or published), the claim walks on for the rest from where the cursor stands now,
   * past the later reservations, holding the cursor's row until its commit (the next reservations
   * wait for it) and passing over the heads it reserved, which a walk round few aggregates would
   * come back to. Where the claim stopped at its result budget, the cursor goes back to the first
   * head left out, so it is not passed over for a round, unless a later reservation has moved the
   * cursor on since: then that head waits for the next round.
   */
  static Claim claimReserved(
      SqlSession s,
      OutboxSql dialect,
      String owner,
      Reservation reserved,
      int limit,
      Instant at,
      Instant leaseEnd) {
    if (reserved.heads().isEmpty()) {
      return Claim.of(List.of());
    }
    Claim claim = dialect.claimHeads(s, owner, reserved.heads(), at, leaseEnd);
    if (claim.stoppedAtBudget()) {
      if (Objects.equals(dialect.lockClaimCursor(s, CURSOR), reserved.end())) {
        reserved.walk().backTo(reserved.heads(), claimedIds(claim));
        KeyHead.Key back = reserved.walk().last;
        if (!Objects.equals(back, reserved.end())) {
          dialect.moveClaimCursor(s, CURSOR, back, at);
        }
      }
    } else if (claim.size() < reserved.heads().size() && claim.size() < limit) {
      Turn more =
          walkOn(
              s,
              dialect,
              dialect.lockClaimCursor(s, CURSOR),
              Set.copyOf(reserved.heads()),
              true,
              owner,
              limit - claim.size(),
              at,
              leaseEnd);
      more.record(s, dialect, at);
      claim = claim.plus(more.claim());
    }
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

    /** Heads passed over as though not ready. */
    private final Set<String> skip;

    /**
     * Whether the first page reads as many keys as heads are wanted: where most heads are ready, as
     * in a backlog, that is all a claim reads, where a full page of four keys per row leaves three
     * for the next claim to read again; where heads are not ready, full pages follow. Taken with
     * reserving ({@link #reserve}): the walk is then what concurrent claims take turns at.
     */
    private final boolean narrowFirstPage;

    Walk(KeyHead.Key start, int page, Set<String> skip, boolean narrowFirstPage) {
      this.start = start;
      this.page = page;
      this.skip = skip;
      this.narrowFirstPage = narrowFirstPage;
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
        int size = pages == 0 && narrowFirstPage ? Math.min(page, wanted) : page;
        pages++;
        List<KeyHead> keys = dialect.walkKeys(s, from, upTo, size, at);
        for (KeyHead key : keys) {
          if (heads.size() == wanted) {
            break;
          }
          if (key.ready() && !skip.contains(key.headId())) {
            heads.add(key.headId());
            before.put(key.headId(), last);
          }
          last = key.key();
        }
        if (heads.size() == wanted) {
          from = last; // the keys past the last one taken come first next time
        } else if (keys.size() == size) {
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
