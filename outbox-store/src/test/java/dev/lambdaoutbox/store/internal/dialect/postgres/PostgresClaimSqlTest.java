package dev.lambdaoutbox.store.internal.dialect.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import org.junit.jupiter.api.Test;

/**
 * The claim statements are written out whole in {@link PostgresClaimSql}; the columns a claim
 * returns, the bounds on its rows' bytes and the id list's form are declared in {@link
 * MessageRows}, {@link ResultBudget} and {@link PostgresSyntax} too, which the other statements
 * use. These keep them the same.
 */
class PostgresClaimSqlTest {
  private final SqlTemplate sql =
      new SqlTemplate(OutboxTables.withPrefix("t_"), PostgresSyntax.SYNTAX);
  private final String returning = PostgresSyntax.SYNTAX.selectList("m", MessageRows.COLUMNS);

  @Test
  void theClaims_returnTheColumnsTheRowsAreReadFrom() {
    assertThat(sql.fill(PostgresClaimSql.CLAIM)).contains(" RETURNING " + returning + ") ");
    assertThat(sql.fill(PostgresClaimSql.HEADS_CLAIM))
        .contains(" RETURNING " + returning + ") ")
        .contains("m.id = ANY(" + PostgresSyntax.ID_ARRAY + ")");
  }

  @Test
  void theSizedClaims_countAndCutBytesAsTheResultBudgetDoes() {
    String sized = ResultBudget.sizedClaimColumns(returning, "m", false);
    String rowSized = ResultBudget.sizedClaimColumns(returning, "m", true);
    assertThat(sql.fill(PostgresClaimSql.CLAIM_SIZED))
        .contains(", " + ResultBudget.MESSAGE_BYTES + " AS bytes FROM t_outbox_messages ")
        .contains(" RETURNING " + sized + ") ");
    assertThat(sql.fill(PostgresClaimSql.CLAIM_ROW_SIZED))
        .contains(" RETURNING " + rowSized + ") ");
    assertThat(sql.fill(PostgresClaimSql.HEADS_CLAIM_SIZED))
        .contains(", " + ResultBudget.messageBytes("m") + " AS bytes FROM t_outbox_messages m ")
        .contains(" RETURNING " + sized + ") ");
    assertThat(sql.fill(PostgresClaimSql.HEADS_CLAIM_ROW_SIZED))
        .contains(" RETURNING " + rowSized + ") ");
  }
}
