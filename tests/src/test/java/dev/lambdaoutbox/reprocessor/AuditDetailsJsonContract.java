package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.audit.AuditDetails;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The audit's {@code details} as JSON (migration V4): an install from before it keeps every row
 * through the upgrade, the column then refuses what is not JSON, and the query the reprocessor
 * README gives for a discarded payload runs as written, without a cast, and returns the payload
 * byte for byte. One small subclass per database.
 */
abstract class AuditDetailsJsonContract {
  private static final String V4 = "V4__audit_details_as_json.sql";
  private static final String PAYLOAD =
      "{ \"orderId\" : \"order-1001\",\n  \"note\": \"ünïcødé \\u00e9 \\\"q\\\" 🎉 'quoted'\" }\n";

  abstract TestDatabase database();

  @Test
  void upgradeToV4_keepsEveryAuditRow_andTheColumnThenHoldsOnlyJson() throws Exception {
    TestDatabase db = database();
    OutboxTables tables = db.createTablesUpTo("prev4", OutboxSchema.MIGRATIONS.indexOf(V4));
    try {
      DeadLetter dead = deadLetter().payload(PAYLOAD).build();
      String details = AuditDetails.write(dead, "arn:aws:sns:us-east-1:123456789012:quarantine");
      try (Connection c = db.open();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + tables.deadLetterAudit()
                      + " (action, dead_letter_id, request_id, requested_by, reason, details,"
                      + " created_at) VALUES ('REPLAY', ?, 'req-1', 'alice', NULL, ?, ?)")) {
        JdbcValues.setUuid(ps, 1, dead.id(), db.dialect());
        ps.setString(2, details);
        JdbcValues.setInstant(ps, 3, Instant.parse("2026-03-01T03:00:00Z"), db.dialect());
        ps.executeUpdate();
      }

      try (Connection c = db.open()) {
        OutboxSchema.create(tables).migrate(c);
      }

      try (JdbcConnectionProvider connections = Stores.connections(db, tables)) {
        DeadLetterStore store =
            DeadLetterStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
        assertThat(store.auditTrail(dead.id()))
            .singleElement()
            .satisfies(
                e -> {
                  assertThat(e.snapshot()).isEqualTo(dead);
                  assertThat(e.destinationOverride())
                      .isEqualTo("arn:aws:sns:us-east-1:123456789012:quarantine");
                });
      }
      assertThatThrownBy(
              () ->
                  execute(
                      db,
                      "INSERT INTO "
                          + tables.deadLetterAudit()
                          + " (action, dead_letter_id, request_id, requested_by, details,"
                          + " created_at) VALUES ('DISCARD', '"
                          + dead.id()
                          + "', 'r', 'x', 'not json', CURRENT_TIMESTAMP)"))
          .as("details must be JSON after V4")
          .isInstanceOf(SQLException.class);
    } finally {
      db.dropTables(tables);
    }
  }

  @Test
  void theReadmesQueryForADiscardedPayload_runsWithoutACast_andReturnsItByteForByte()
      throws Exception {
    TestDatabase db = database();
    OutboxTables tables = db.createTables("auditjson");
    try (JdbcConnectionProvider connections = Stores.connections(db, tables)) {
      DeadLetter dead = deadLetter().payload(PAYLOAD).build();
      new DeadLetterTables(db, tables).seed(dead);
      DeadLetterStore.builder(JdbcExecutor.of(connections))
          .tables(tables)
          .build()
          .discard(List.of(dead.id()), false, new AuditInfo("req-1", "bob", "load test"));

      String query =
          readmeQuery(db.dialect())
              .replace("outbox_dead_letter_audit", tables.deadLetterAudit())
              .replace("'…'", "'" + dead.id() + "'");
      try (Connection c = db.open();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(query)) {
        assertThat(rs.next()).as(query).isTrue();
        assertThat(rs.getString("payload").getBytes(UTF_8)).isEqualTo(PAYLOAD.getBytes(UTF_8));
        assertThat(rs.next()).isFalse();
      }
    } finally {
      db.dropTables(tables);
    }
  }

  /**
   * The statement under {@code -- PostgreSQL} or {@code -- MySQL, MariaDB} in the reprocessor
   * README's SQL block, up to its semicolon.
   */
  private static String readmeQuery(SqlDialect dialect) throws IOException {
    String readme =
        Files.readString(
            PackagedFunction.projectRoot().resolve("dlq-reprocessor-function/README.md"));
    String marker = dialect == SqlDialect.POSTGRESQL ? "-- PostgreSQL\n" : "-- MySQL, MariaDB\n";
    int start = readme.indexOf(marker);
    assertThat(start).as("README has a query under '%s'", marker.strip()).isPositive();
    start += marker.length();
    return readme.substring(start, readme.indexOf(';', start));
  }

  private static void execute(TestDatabase db, String sql) throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
