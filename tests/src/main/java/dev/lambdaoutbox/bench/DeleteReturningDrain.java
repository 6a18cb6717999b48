package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * The reference ceiling: a bare {@code DELETE ... RETURNING} of 1,000 due rows at a time in
 * auto-commit, reading every column (PostgreSQL, and MariaDB, which has {@code DELETE ...
 * RETURNING}; MySQL has not). It has no lease, so a crash after the delete loses the rows; the
 * store's claim-then-complete pays for that safety.
 */
final class DeleteReturningDrain {
  private DeleteReturningDrain() {}

  static DrainResult run(TestDatabase db, OutboxTables tables) throws Exception {
    String t = tables.messages();
    String returning =
        " RETURNING id, aggregate_type, aggregate_id, event_type, payload, headers,"
            + " destination, idempotency_key, occurred_at, created_at, retry_count, replay_count";
    // MariaDB deletes in order with a LIMIT of its own (a DELETE may not read its own table in a
    // subquery); one loop alone needs no SKIP LOCKED.
    String sql =
        db.dialect() == SqlDialect.POSTGRESQL
            ? "DELETE FROM "
                + t
                + " WHERE id IN (SELECT id FROM "
                + t
                + " WHERE status = 'PENDING' AND next_attempt_at <= now()"
                + " ORDER BY next_attempt_at, id LIMIT 1000 FOR UPDATE SKIP LOCKED)"
                + returning
            : "DELETE FROM "
                + t
                + " WHERE status = 'PENDING' AND next_attempt_at <= UTC_TIMESTAMP(6)"
                + " ORDER BY next_attempt_at, id LIMIT 1000"
                + returning;
    long rows = 0;
    long chars = 0;
    long start;
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement(sql)) {
      start = System.nanoTime();
      while (true) {
        int n = 0;
        // execute(), not executeQuery(): MySQL Connector/J refuses a DELETE in executeQuery().
        ps.execute();
        try (ResultSet rs = ps.getResultSet()) {
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
