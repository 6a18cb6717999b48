package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;

/**
 * The poller leases' statements ({@code outbox_poller_leases}, migration V8), the same in every
 * dialect apart from how a time is written: a lease is taken or renewed by one compare-and-set
 * {@code UPDATE} of its row, which the migration inserts, and given back by another.
 */
public final class PortableLeases {
  private final String hold;
  private final String release;

  public PortableLeases(SqlTemplate sql) {
    // Free (run out) or already the caller's: the row moves, and the update counts it.
    this.hold =
        sql.fill(
            """
            UPDATE {pollerLeases} SET held_by = :owner, held_until = {at:until}
            WHERE lease_name = :name AND (held_until <= {at:now} OR held_by = :owner)
            """);
    this.release =
        sql.fill(
            """
            UPDATE {pollerLeases} SET held_by = NULL, held_until = {at:now}
            WHERE lease_name = :name AND held_by = :owner
            """);
  }

  /**
   * Takes or renews lease {@code name} for {@code owner} until {@code until}, if it has run out at
   * {@code now} or is the owner's already; returns whether the owner holds it.
   */
  public boolean hold(SqlSession s, String name, String owner, Instant now, Instant until) {
    return s.update(
            hold,
            Params.of()
                .text("name", name)
                .text("owner", owner)
                .timestamp("now", now)
                .timestamp("until", until))
        == 1;
  }

  /** Gives lease {@code name} back if {@code owner} holds it; returns whether it did. */
  public boolean release(SqlSession s, String name, String owner, Instant now) {
    return s.update(
            release, Params.of().text("name", name).text("owner", owner).timestamp("now", now))
        == 1;
  }
}
