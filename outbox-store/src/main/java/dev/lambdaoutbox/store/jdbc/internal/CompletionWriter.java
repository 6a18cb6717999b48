package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.OutboxStore.CompletionCounts;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Records a batch of outcomes in the caller's transaction: published rows first (they need no
 * lease), then retries, then dead letters, each kind as one statement or one batch. An outcome the
 * database did not apply (the row was reclaimed by another owner, or is already gone) counts as
 * {@code skippedLeaseLost}.
 */
public final class CompletionWriter {
  private final CompletionSql sql;
  private final boolean retain;

  public CompletionWriter(SqlDialect dialect, OutboxTables tables, boolean retain) {
    this.sql = CompletionSql.of(dialect, tables);
    this.retain = retain;
  }

  public CompletionCounts write(
      Connection c, String owner, List<DeliveryOutcome> outcomes, Instant now) throws SQLException {
    List<UUID> published = new ArrayList<>();
    List<Retry> retries = new ArrayList<>();
    List<DeadLetter> deadLetters = new ArrayList<>();
    Set<UUID> seen = new HashSet<>();
    for (DeliveryOutcome outcome : outcomes) {
      if (!seen.add(outcome.id())) {
        throw new IllegalArgumentException(
            "outcomes: row " + outcome.id() + " has more than one outcome");
      }
      switch (outcome) {
        case Published p -> published.add(p.id());
        case Retry r -> {
          if (r.nextAttemptAt() == null) {
            throw new IllegalArgumentException(
                "outcomes: retry of " + r.id() + " has no nextAttemptAt");
          }
          retries.add(r);
        }
        case DeadLetter d -> deadLetters.add(d);
      }
    }
    int sent = published.isEmpty() ? 0 : sql.published(c, published, now, retain);
    int retried = retries.isEmpty() ? 0 : sql.retried(c, owner, retries, now);
    int dead = deadLetters.isEmpty() ? 0 : sql.deadLettered(c, owner, deadLetters, now);
    int skipped = outcomes.size() - sent - retried - dead;
    return new CompletionCounts(sent, retried, dead, skipped);
  }
}
