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
    String sql = OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 3, Stamp.DATABASE, false);

    assertThat(sql).startsWith("INSERT INTO shop_outbox_messages (id, ");
    assertThat(sql.chars().filter(c -> c == '?').count()).isEqualTo(27);
    assertThat(sql.split("\\(\\?,", -1)).hasSize(4);
    assertThat(sql).contains("?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))");
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.POSTGRESQL, 1, Stamp.DATABASE, false))
        .contains("?, statement_timestamp(), statement_timestamp(), statement_timestamp())");
  }

  @Test
  void sql_withAnInstantStandingInForTheDatabasesClock_bindsIt() {
    String sql = OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 3, Stamp.at(Instant.EPOCH), false);

    assertThat(sql.chars().filter(c -> c == '?').count()).isEqualTo(36);
    assertThat(sql).doesNotContain("UTC_TIMESTAMP");
  }

  @Test
  void sql_forEventsThatWaitForTheirTime_addsTheirDelayToTheDatabasesClock() {
    String mysql = OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 2, Stamp.DATABASE, true);
    String postgres = OutboxInsert.sql(TABLES, SqlDialect.POSTGRESQL, 1, Stamp.DATABASE, true);

    // Per row, the delay and the time given, once for next_attempt_at and once for not_before.
    assertThat(mysql.chars().filter(c -> c == '?').count()).isEqualTo(2 * (9 + 4));
    assertThat(mysql).contains("GREATEST(TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6)), ");
    assertThat(postgres)
        .contains("GREATEST(statement_timestamp() + CAST(? AS double precision) * INTERVAL");
  }

  @Test
  void sql_onPostgres_skipsRowsWhoseKeyIsTaken() {
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.POSTGRESQL, 2, Stamp.DATABASE, false))
        .endsWith(" ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING");
  }

  @Test
  void sql_onMysql_hasNoConflictClause() {
    assertThat(OutboxInsert.sql(TABLES, SqlDialect.MYSQL, 1, Stamp.DATABASE, false))
        .doesNotContain("CONFLICT");
  }
}
