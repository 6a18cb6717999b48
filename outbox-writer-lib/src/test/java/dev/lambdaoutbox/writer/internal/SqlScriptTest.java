package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlScriptTest {

  @Test
  void statements_splitsOnSemicolonsAndTrims() {
    assertThat(SqlScript.statements("CREATE TABLE a (x int);\n\n  CREATE INDEX i ON a (x) ;\n"))
        .containsExactly("CREATE TABLE a (x int)", "CREATE INDEX i ON a (x)");
  }

  @Test
  void statements_keepsALastStatementWithoutSemicolon() {
    assertThat(SqlScript.statements("SELECT 1;\nSELECT 2")).containsExactly("SELECT 1", "SELECT 2");
  }

  @Test
  void statements_dropsLineCommentsIncludingSemicolonsInThem() {
    String script =
        """
        -- header; with a semicolon
        CREATE TABLE a (
            x int,  -- trailing comment; also with one
            y int
        );
        -- a comment between statements
        CREATE TABLE b (z int); -- after the statement
        """;

    assertThat(SqlScript.statements(script))
        .containsExactly("CREATE TABLE a (\n    x int,  \n    y int\n)", "CREATE TABLE b (z int)");
  }

  @Test
  void statements_skipsEmptyStatements() {
    assertThat(SqlScript.statements(";;\n ; -- only a comment;\n;")).isEmpty();
    assertThat(SqlScript.statements("")).isEmpty();
  }

  @Test
  void statements_handlesWindowsLineEnds() {
    assertThat(
            SqlScript.statements("CREATE TABLE a (x int);\r\n-- c\r\nCREATE TABLE b (y int);\r\n"))
        .containsExactly("CREATE TABLE a (x int)", "CREATE TABLE b (y int)");
  }
}
