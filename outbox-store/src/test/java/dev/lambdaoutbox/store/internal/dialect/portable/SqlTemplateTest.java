package dev.lambdaoutbox.store.internal.dialect.portable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import org.junit.jupiter.api.Test;

/** A statement written as a text block comes out as the one line of SQL the dialect runs. */
class SqlTemplateTest {
  private static final Syntax SYNTAX =
      new Syntax(
          name -> "at(:" + name + ")",
          expression -> "utc(" + expression + ")",
          name -> "json(:" + name + ")",
          index -> " USE(" + index + ")",
          "EXPLAIN ",
          "now()");
  private final SqlTemplate sql = new SqlTemplate(OutboxTables.withPrefix("app_"), SYNTAX);

  @Test
  void fill_namesTheTablesAndWritesTimesAndIndexesInTheDialect_onOneLine() {
    String filled =
        sql.fill(
            """
            SELECT {utc:created_at} AS created_at FROM {messages} w{index:{messages}_due_ix}
            WHERE next_attempt_at <= {at:now} AND owner = :owner{extra}
            """,
            "extra",
            " LIMIT 5");

    assertThat(filled)
        .isEqualTo(
            "SELECT utc(created_at) AS created_at FROM "
                + OutboxTables.withPrefix("app_").messages()
                + " w USE("
                + OutboxTables.withPrefix("app_").messages()
                + "_due_ix) WHERE next_attempt_at <= at(:now) AND owner = :owner LIMIT 5");
  }

  @Test
  void fill_leavesJsonPathLiteralsAlone() {
    assertThat(sql.fill("SELECT details #> '{deadLetter,payload}' FROM {deadLetterAudit}"))
        .startsWith("SELECT details #> '{deadLetter,payload}' FROM ");
  }

  @Test
  void fill_refusesANameNobodyDefined_namingIt() {
    assertThatThrownBy(() -> sql.fill("SELECT 1 FROM {mesages}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("{mesages}");
  }
}
