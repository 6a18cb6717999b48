package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * The reference ceiling: a bare {@code DELETE ... RETURNING} of 1,000 due rows at a time in
 * auto-commit, reading every column. It has no lease, so a crash after the delete loses the rows;
 * the store's claim-then-complete pays for that safety.
 */
final class DeleteReturningDrain {
  private DeleteReturningDrain() {}

  static DrainResult run(TestDatabase db, OutboxTables tables) throws Exception {
    String t = tables.messages();
    String sql =
        "DELETE FROM "
            + t
            + " WHERE id IN (SELECT id FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= now()"
            + " ORDER BY next_attempt_at, id LIMIT 1000 FOR UPDATE SKIP LOCKED)"
            + " RETURNING id, aggregate_type, aggregate_id, event_type, payload, headers,"
            + " destination, idempotency_key, occurred_at, created_at, retry_count, replay_count";
    long rows = 0;
    long chars = 0;
    long start;
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement(sql)) {
      start = System.nanoTime();
      while (true) {
        int n = 0;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            chars += rs.getString("payload").length();
            n++;
          }
        }
        if (n == 0) {
          break;
        }
        rows += n;
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new DrainResult(
        "reference: bare DELETE ... RETURNING, 1,000/stmt", rows, seconds, "no lease; not safe");
  }
}
