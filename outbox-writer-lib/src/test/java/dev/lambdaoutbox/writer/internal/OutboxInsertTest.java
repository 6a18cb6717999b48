package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import org.junit.jupiter.api.Test;

class OutboxInsertTest {
  private static final OutboxTables TABLES = OutboxTables.withPrefix("shop_");

  @Test
  void sql_hasOneGroupOfElevenParametersPerRow() {
    String sql = OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 3);

    assertThat(sql).startsWith("INSERT INTO shop_outbox_messages (id, ");
    assertThat(sql.chars().filter(c -> c == '?').count()).isEqualTo(33);
    assertThat(sql.split("\\(\\?,", -1)).hasSize(4);
  }

  @Test
  void sql_onPostgres_skipsRowsWhoseKeyIsTaken() {
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.POSTGRESQL, 2))
        .endsWith(" ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING");
  }

  @Test
  void sql_onMysql_hasNoConflictClause() {
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 1)).doesNotContain("CONFLICT");
  }
}
