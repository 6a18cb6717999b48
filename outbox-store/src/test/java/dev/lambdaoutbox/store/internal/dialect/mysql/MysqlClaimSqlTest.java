package dev.lambdaoutbox.store.internal.dialect.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import org.junit.jupiter.api.Test;

/**
 * The claim statements are written out whole in {@link MysqlClaimSql}; the columns a claim reads
 * and the bounds on its rows' bytes are declared in {@link MessageRows} and {@link ResultBudget}
 * too, which the other dialect and the Data API use. These keep the two the same.
 */
class MysqlClaimSqlTest {
  private final SqlTemplate sql =
      new SqlTemplate(OutboxTables.withPrefix("t_"), MysqlSyntax.SYNTAX);

  @Test
  void theClaims_readTheColumnsTheRowsAreReadFrom() {
    assertThat(sql.fill(MysqlClaimSql.CLAIM))
        .contains(
            MysqlSyntax.SYNTAX.selectList("c", MessageRows.COLUMNS) + " FROM t_outbox_messages");
    assertThat(sql.fill(MysqlClaimSql.HEADS))
        .contains(
            MysqlSyntax.SYNTAX.selectList("m", MessageRows.COLUMNS) + " FROM t_outbox_messages");
  }

  @Test
  void theSizedClaims_countAndCutBytesAsTheResultBudgetDoes() {
    assertThat(sql.fill(MysqlClaimSql.CLAIM_SIZES))
        .startsWith("SELECT id, " + ResultBudget.MESSAGE_BYTES + " AS bytes FROM ");
    assertThat(sql.fill(MysqlClaimSql.HEADS_SIZES))
        .startsWith("SELECT m.id, " + ResultBudget.messageBytes("m") + " AS bytes FROM ");
    String columns = MysqlSyntax.SYNTAX.selectList("", MessageRows.COLUMNS);
    assertThat(sql.fill(MysqlClaimSql.CLAIMED_ROWS))
        .startsWith(
            "SELECT "
                + ResultBudget.sizedClaimColumns(columns, "", false)
                + ", :dueRows AS due_rows FROM t_outbox_messages WHERE id IN");
    assertThat(sql.fill(MysqlClaimSql.CLAIMED_ROWS_BOUNDED))
        .startsWith(
            "SELECT "
                + ResultBudget.sizedClaimColumns(columns, "", true)
                + ", :dueRows AS due_rows FROM t_outbox_messages WHERE id IN");
  }
}
