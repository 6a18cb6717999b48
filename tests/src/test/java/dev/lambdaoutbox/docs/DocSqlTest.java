package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code sql} block of the pages runs as written on PostgreSQL and on MariaDB, against the
 * outbox tables migrated under a prefix of this test's own, the prefix put in front of every table
 * name as a user with a {@code TablePrefix} does: a column or table the schema does not have fails
 * here. A section under a comment naming a database ({@code -- PostgreSQL}, {@code -- MySQL,
 * MariaDB}) runs on that database only; the placeholder {@code '…'} stands for an id and is given a
 * UUID. Each block runs in a transaction that is rolled back.
 */
class DocSqlTest {
  private static final Pattern TABLE = Pattern.compile("\\b(outbox_[a-z_]+|inbox_[a-z_]+)\\b");
  private static final String PLACEHOLDER_ID = "'0195a3c4-8f21-7b9e-a4d2-3c51e0f7b812'";

  enum Database {
    POSTGRESQL,
    MARIADB
  }

  private static TestDatabase postgres;
  private static TestDatabase mariadb;
  private static OutboxTables postgresTables;
  private static OutboxTables mariadbTables;

  @BeforeAll
  static void migrate() {
    postgres = TestEndpoints.postgres();
    mariadb = TestEndpoints.mysql();
    postgresTables = postgres.createTables("docsql");
    mariadbTables = mariadb.createTables("docsql");
  }

  @AfterAll
  static void drop() {
    if (postgresTables != null) {
      postgres.dropTables(postgresTables);
    }
    if (mariadbTables != null) {
      mariadb.dropTables(mariadbTables);
    }
  }

  @Test
  void everySqlBlock_runsOnTheRealSchema_withATablePrefix() {
    List<CodeBlock> blocks =
        DocPages.blocks("sql").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    assertThat(blocks).as("the pages' sql blocks").isNotEmpty();
    for (CodeBlock block : blocks) {
      List<Section> sections = sections(block);
      assertThat(sections).as("%s has a statement", block).isNotEmpty();
      for (Section section : sections) {
        for (Database database : section.databases()) {
          run(block, section.sql(), database);
        }
      }
    }
  }

  @Test
  void aColumnTheSchemaDoesNotHave_fails() {
    CodeBlock wrong =
        new CodeBlock(
            null,
            0,
            "sql",
            "SELECT destination, consecutive_failures FROM outbox_destination_health;\n",
            java.util.Optional.empty());
    for (Database database : Database.values()) {
      assertThat(tryRun(sections(wrong).get(0).sql(), database))
          .as("the test can fail on %s", database)
          .containsIgnoringCase("consecutive_failures");
    }
  }

  /** Statements and the databases they are for. */
  record Section(String sql, Set<Database> databases) {}

  /** The block's statements, each with the databases its section names (both by default). */
  static List<Section> sections(CodeBlock block) {
    List<Section> sections = new ArrayList<>();
    Set<Database> current = EnumSet.allOf(Database.class);
    StringBuilder statement = new StringBuilder();
    for (String line : block.text().split("\n")) {
      String stripped = line.strip();
      if (stripped.startsWith("--") && statement.toString().isBlank()) {
        Set<Database> named = named(stripped);
        if (!named.isEmpty()) {
          current = named;
        }
        continue;
      }
      statement.append(line).append('\n');
      if (stripped.replaceAll("--.*$", "").strip().endsWith(";")) {
        sections.add(new Section(statement.toString().strip(), current));
        statement.setLength(0);
      }
    }
    if (!statement.toString().isBlank()) {
      sections.add(new Section(statement.toString().strip(), current));
    }
    return sections;
  }

  private static Set<Database> named(String comment) {
    String text = comment.toLowerCase(Locale.ROOT);
    Set<Database> named = EnumSet.noneOf(Database.class);
    if (text.contains("postgresql")) {
      named.add(Database.POSTGRESQL);
    }
    if (text.contains("mysql") || text.contains("mariadb")) {
      named.add(Database.MARIADB);
    }
    return named;
  }

  private static void run(CodeBlock block, String sql, Database database) {
    String error = tryRun(sql, database);
    if (error != null) {
      fail("%s on %s:%n%s%n%s", block, database, sql, error);
    }
  }

  /** Null when the statement ran, else the database's error. */
  private static String tryRun(String sql, Database database) {
    TestDatabase db = database == Database.POSTGRESQL ? postgres : mariadb;
    OutboxTables tables = database == Database.POSTGRESQL ? postgresTables : mariadbTables;
    // As a client sends it: line comments and the closing semicolon are the client's business.
    String prefixed =
        prefixed(sql, tables)
            .replace("'…'", PLACEHOLDER_ID)
            .replaceAll("(?m)\\s*--.*$", "")
            .strip()
            .replaceAll(";$", "");
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        if (st.execute(prefixed)) {
          try (ResultSet rs = st.getResultSet()) {
            while (rs.next()) {
              // read every row, as a user's client would
            }
          }
        }
      } finally {
        c.rollback();
      }
      return null;
    } catch (SQLException e) {
      return e.getMessage();
    }
  }

  private static String prefixed(String sql, OutboxTables tables) {
    Matcher m = TABLE.matcher(sql);
    return m.replaceAll(t -> Matcher.quoteReplacement(tables.prefix() + t.group(1)));
  }
}
