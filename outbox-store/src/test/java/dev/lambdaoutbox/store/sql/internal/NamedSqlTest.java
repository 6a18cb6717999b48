package dev.lambdaoutbox.store.sql.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamedSqlTest {
  @Test
  void names_becomeQuestionMarks_inOrder_andARepeatedNameIsBoundTwice() {
    NamedSql sql =
        NamedSql.parse("UPDATE t SET a = :leaseEnd, b = :leaseEnd, c = :owner WHERE d <= :now");

    assertThat(sql.positional()).isEqualTo("UPDATE t SET a = ?, b = ?, c = ? WHERE d <= ?");
    assertThat(sql.names()).containsExactly("leaseEnd", "leaseEnd", "owner", "now");
  }

  @Test
  void quotedText_comments_andCasts_areLeftAlone() {
    NamedSql sql =
        NamedSql.parse(
            "SELECT to_char(x, 'HH24:MI:SS'), '::x'' :y', \"a:b\", x::text -- :c\n"
                + " /* :d */ FROM t WHERE id = CAST(:id AS uuid)");

    assertThat(sql.positional())
        .isEqualTo(
            "SELECT to_char(x, 'HH24:MI:SS'), '::x'' :y', \"a:b\", x::text -- :c\n"
                + " /* :d */ FROM t WHERE id = CAST(? AS uuid)");
    assertThat(sql.names()).containsExactly("id");
  }

  @Test
  void aNameEndsAtTheFirstCharacterThatCannotBePartOfIt() {
    NamedSql sql = NamedSql.parse("IN (:id0, :id10,:id_2)");

    assertThat(sql.positional()).isEqualTo("IN (?, ?,?)");
    assertThat(sql.names()).containsExactly("id0", "id10", "id_2");
  }
}
