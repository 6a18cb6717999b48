package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.internal.SqlScript;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OutboxSchemaTest {

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void render_fillsInThePrefixEverywhere(SqlDialect dialect) {
    String sql =
        OutboxSchema.create(OutboxTables.withPrefix("shop_"))
            .render(dialect, OutboxSchema.MIGRATIONS.get(0));

    assertThat(sql)
        .doesNotContain("${")
        .contains("CREATE TABLE shop_outbox_messages")
        .contains("CREATE TABLE shop_outbox_dead_letters")
        .contains("CREATE TABLE shop_outbox_dead_letter_audit")
        .contains("CREATE TABLE shop_inbox_processed_messages")
        .doesNotContain(" outbox_messages");
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void render_withoutPrefix_usesTheDefaultNames(SqlDialect dialect) {
    String sql = OutboxSchema.create().render(dialect, OutboxSchema.MIGRATIONS.get(0));

    assertThat(sql).doesNotContain("${").contains("CREATE TABLE outbox_messages (");
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void everyMigration_existsForEveryDialectAndSplitsIntoStatements(SqlDialect dialect) {
    for (String migration : OutboxSchema.MIGRATIONS) {
      List<String> statements = OutboxSchema.create().statements(dialect, migration);
      if (statements.isEmpty()) {
        assertThat(OutboxSchema.create().render(dialect, migration))
            .as(migration + " changes nothing in " + dialect + ", and says so")
            .startsWith("-- Lambda Outbox schema")
            .contains("nothing to change");
      }
      assertThat(statements)
          .allSatisfy(
              sql ->
                  assertThat(sql)
                      .matches("(?s)(CREATE|INSERT|ALTER|UPDATE|DROP INDEX) .*")
                      .doesNotContain("--"));
    }
  }

  @Test
  void everyMigration_changesTheSchemaOfSomeDialect() {
    for (String migration : OutboxSchema.MIGRATIONS) {
      assertThat(SqlDialect.values())
          .as(migration)
          .anySatisfy(d -> assertThat(OutboxSchema.create().statements(d, migration)).isNotEmpty());
    }
  }

  @Test
  void v10_addsThePendingKeyIndexOnMysqlOnly() {
    OutboxSchema schema = OutboxSchema.create(OutboxTables.withPrefix("shop_"));

    assertThat(schema.statements(SqlDialect.MYSQL, "V10__pending_key_index.sql"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s)
                    .startsWith("ALTER TABLE shop_outbox_messages")
                    .contains(
                        "ADD INDEX shop_outbox_messages_status_key_ix"
                            + " (status, aggregate_type, aggregate_id, seq)"));
    assertThat(schema.statements(SqlDialect.POSTGRESQL, "V10__pending_key_index.sql")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void v2_createsTheKeyTableAndHoldsTheKeysOfRowsAlreadyInTheOutbox(SqlDialect dialect) {
    String sql =
        OutboxSchema.create(OutboxTables.withPrefix("shop_"))
            .render(dialect, "V2__create_idempotency_keys.sql");

    assertThat(SqlScript.statements(sql))
        .anySatisfy(
            s ->
                assertThat(s)
                    .startsWith("CREATE TABLE shop_outbox_idempotency_keys (")
                    .contains("PRIMARY KEY (idempotency_key)"))
        .anySatisfy(s -> assertThat(s).contains("shop_outbox_idempotency_keys_seen_ix"))
        .last()
        .satisfies(
            s ->
                assertThat(s)
                    .startsWith("INSERT INTO shop_outbox_idempotency_keys")
                    .contains("FROM shop_outbox_messages"));
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void v4_makesTheAuditDetailsJson(SqlDialect dialect) {
    String sql =
        OutboxSchema.create(OutboxTables.withPrefix("shop_"))
            .render(dialect, "V4__audit_details_as_json.sql");

    assertThat(SqlScript.statements(sql))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s)
                    .startsWith("ALTER TABLE shop_outbox_dead_letter_audit")
                    .contains(
                        dialect == SqlDialect.POSTGRESQL
                            ? "ALTER COLUMN details TYPE jsonb USING details::jsonb"
                            : "MODIFY details JSON NULL"));
  }

  @Test
  void version_isTheNumberAfterV() {
    assertThat(OutboxSchema.version("V1__create_outbox_tables.sql")).isEqualTo("1");
    assertThat(OutboxSchema.version("V12__add_column.sql")).isEqualTo("12");
  }
}
