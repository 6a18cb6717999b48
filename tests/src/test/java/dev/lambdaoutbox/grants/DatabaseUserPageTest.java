package dev.lambdaoutbox.grants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxGrants;
import dev.lambdaoutbox.writer.OutboxRole;
import dev.lambdaoutbox.writer.internal.GrantsCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/database-user.md is what the code says: each {@code scripts/outbox-ops grants} block is
 * followed by exactly what the command prints, the table of who may do what is {@link
 * OutboxGrants}'s, the missing-grant example is the error the stores give, its {@code CREATE}
 * statements run, and the documented command itself prints what the page shows. On a difference the
 * page as it should be is written to {@code tests/target/database-user.md}.
 */
class DatabaseUserPageTest {
  static final Path PAGE = PackagedFunction.projectRoot().resolve("docs/database-user.md");

  /** The mark that hands the page's SQL to this test rather than to DocSqlTest. */
  private static final String CHECKED = "<!-- checked by DatabaseUserPageTest -->\n";

  private static final Pattern GRANTS_BLOCK =
      Pattern.compile(
          "```bash\n(scripts/outbox-ops grants [^\n]*)\n```\n" + CHECKED + "```sql\n(.*?)```",
          Pattern.DOTALL);
  private static final String MATRIX_START = "## Who may do what\n\n";
  private static final String MATRIX_END = "\n\nThe dead-letter audit";
  private static final String MISSING_START = "poller's purge on MariaDB:\n\n```\n";
  static final String MISSING_SERVER_MESSAGE =
      "DELETE command denied to user 'outbox_functions'@'10.0.1.23' for table"
          + " `orders`.`outbox_idempotency_keys`";
  static final String MISSING_STATEMENT =
      "DELETE FROM outbox_idempotency_keys WHERE idempotency_key IN (:v0, :v1)";

  @Test
  void page_isWhatTheCodeSays() throws Exception {
    String page = Files.readString(PAGE);
    String expected = expected(page);
    if (!expected.equals(page)) {
      Path fresh = PackagedFunction.projectRoot().resolve("tests/target/database-user.md");
      Files.writeString(fresh, expected);
      assertThat(page)
          .as(
              "docs/database-user.md differs from what the code says; the page as it should be is"
                  + " in "
                  + fresh)
          .isEqualTo(expected);
    }
    assertThat(GRANTS_BLOCK.matcher(page).results().count()).isGreaterThanOrEqualTo(6);
  }

  @Test
  void theDocumentedCommand_printsWhatThePageShows() throws Exception {
    Matcher block = GRANTS_BLOCK.matcher(Files.readString(PAGE));
    assertThat(block.find()).isTrue();
    List<String> command = new ArrayList<>(List.of(block.group(1).split(" ")));
    command.set(0, PackagedFunction.projectRoot().resolve(command.get(0)).toString());
    Process p =
        new ProcessBuilder(command)
            .directory(PackagedFunction.projectRoot().toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(out).isEqualTo(block.group(2));
  }

  @Test
  void createStatements_runOnPostgresql() throws SQLException {
    runCreates(TestEndpoints.postgres(), "CREATE ROLE ", "DROP ROLE ");
  }

  @Test
  void createStatements_runOnMariaDb() throws SQLException {
    runCreates(TestEndpoints.mysql(), "CREATE USER ", "DROP USER ");
  }

  /** Each of the page's statements starting {@code create}, for a user of a name of its own. */
  private static void runCreates(TestDatabase db, String create, String drop) throws SQLException {
    List<String> statements = new ArrayList<>();
    try {
      statements =
          Files.readString(PAGE)
              .lines()
              .filter(l -> l.startsWith(create))
              .map(l -> l.replaceAll(";$", ""))
              .toList();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    assertThat(statements).hasSize(2);
    for (String statement : statements) {
      String name = statement.substring(create.length()).split("[ @]")[0].replace("'", "");
      String unique =
          "og" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 24)) + "_page";
      String grantee = statement.substring(create.length()).split(" ")[0].replace(name, unique);
      try (Connection c = db.open();
          Statement st = c.createStatement()) {
        st.execute(statement.replace(name, unique));
        st.execute(drop + grantee);
      }
    }
  }

  /** {@code page} with every part the code makes made afresh. */
  static String expected(String page) {
    StringBuilder out = new StringBuilder();
    Matcher block = GRANTS_BLOCK.matcher(page);
    int at = 0;
    while (block.find()) {
      out.append(page, at, block.start(2)).append(print(block.group(1)));
      at = block.end(2);
    }
    out.append(page.substring(at));
    String result = replaceBetween(out.toString(), MATRIX_START, MATRIX_END, matrix());
    return replaceBetween(result, MISSING_START, "\n```", missingExample());
  }

  private static String replaceBetween(String text, String start, String end, String with) {
    int from = text.indexOf(start);
    assertThat(from).as("the page has '%s'", start.strip()).isNotNegative();
    from += start.length();
    int to = text.indexOf(end, from);
    assertThat(to).as("the page has '%s' after '%s'", end.strip(), start.strip()).isNotNegative();
    return text.substring(0, from) + with + text.substring(to);
  }

  /** What {@code scripts/outbox-ops grants ...} prints. */
  private static String print(String commandLine) {
    String[] args = commandLine.substring("scripts/outbox-ops grants ".length()).split(" +");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int status =
        GrantsCommand.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(status).as(commandLine).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * Who may do what, per table: PostgreSQL's privileges, and MySQL's where they are fewer (no
   * {@code UPDATE} for locking).
   */
  static String matrix() {
    Map<String, Map<OutboxRole, String>> cells = new LinkedHashMap<>();
    for (OutboxRole role : OutboxRole.values()) {
      OutboxGrants grants = OutboxGrants.builder().roles(role).build();
      Map<String, Set<Privilege>> mysql = new LinkedHashMap<>();
      grants.grants(SqlDialect.MYSQL).forEach(g -> mysql.put(g.table(), g.privileges()));
      for (OutboxGrants.TableGrant g : grants.grants(SqlDialect.POSTGRESQL)) {
        String table = g.table().substring("public.".length());
        String cell = g.privilegeList();
        if (!mysql.get(table).equals(g.privileges())) {
          cell +=
              " (MySQL: "
                  + new OutboxGrants.TableGrant(table, mysql.get(table), List.of()).privilegeList()
                  + ")";
        }
        cells.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(role, cell);
      }
    }
    StringBuilder md =
        new StringBuilder("| table | writer | poller | reprocessor |\n|---|---|---|---|");
    for (Map.Entry<String, Map<OutboxRole, String>> row : cells.entrySet()) {
      md.append("\n| `").append(row.getKey()).append('`');
      for (OutboxRole role : OutboxRole.values()) {
        md.append(" | ").append(row.getValue().getOrDefault(role, ""));
      }
      md.append(" |");
    }
    return md.toString();
  }

  /** The error the poller's purge gives on MariaDB without DELETE on the idempotency keys. */
  static String missingExample() {
    return PermissionDenied.explain(MISSING_SERVER_MESSAGE, MISSING_STATEMENT);
  }
}
