package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OutboxInsertTest {
  private static final OutboxTables TABLES = OutboxTables.withPrefix("shop_");

  @Test
  void sql_hasOneGroupOfValuesPerRow_datedByTheDatabasesClock() {
    String sql = OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 3, Stamp.DATABASE);

    assertThat(sql).startsWith("INSERT INTO shop_outbox_messages (id, ");
    assertThat(sql.chars().filter(c -> c == '?').count()).isEqualTo(27);
    assertThat(sql.split("\\(\\?,", -1)).hasSize(4);
    assertThat(sql).contains("?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))");
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.POSTGRESQL, 1, Stamp.DATABASE))
        .contains("?, statement_timestamp(), statement_timestamp())");
  }

  @Test
  void sql_withAnInstantStandingInForTheDatabasesClock_bindsIt() {
    String sql = OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 3, Stamp.at(Instant.EPOCH));

    assertThat(sql.chars().filter(c -> c == '?').count()).isEqualTo(33);
    assertThat(sql).doesNotContain("UTC_TIMESTAMP");
  }

  @Test
  void sql_onPostgres_skipsRowsWhoseKeyIsTaken() {
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.POSTGRESQL, 2, Stamp.DATABASE))
        .endsWith(" ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING");
  }

  @Test
  void sql_onMysql_hasNoConflictClause() {
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 1, Stamp.DATABASE))
        .doesNotContain("CONFLICT");
  }
}
