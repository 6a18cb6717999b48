package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxGrants;
import dev.lambdaoutbox.writer.OutboxRole;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GrantsCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @Test
  void printsTheScriptOfItsOptions() {
    int status =
        run(
            "--dialect",
            "mysql",
            "--role",
            "outbox_writer",
            "--for",
            "writer",
            "--prefix",
            "shop_");

    assertThat(status).isZero();
    assertThat(text(out))
        .isEqualTo(
            OutboxGrants.builder()
                .roles(OutboxRole.WRITER)
                .tables(OutboxTables.withPrefix("shop_"))
                .build()
                .script(SqlDialect.MYSQL, "outbox_writer"));
    assertThat(text(err)).isEmpty();
  }

  @Test
  void withoutFor_grantsWhatBothFunctionsNeed() {
    GrantsCommand.Parsed parsed =
        GrantsCommand.parse(new String[] {"--dialect", "postgresql", "--role", "outbox_functions"});

    assertThat(parsed.grants().roles()).containsExactly(OutboxRole.POLLER, OutboxRole.REPROCESSOR);
    assertThat(parsed.grants().schema(SqlDialect.POSTGRESQL)).isEqualTo("public");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--role x|--dialect: missing",
        "--dialect postgresql|--role: missing",
        "--dialect oracle --role x|--dialect: 'oracle'",
        "--dialect mysql --role X|--role: user: 'X'",
        "--dialect mysql --role x --for writer,admin|--for: 'admin'",
        "--dialect mysql --role x --prefix 9x|--prefix: tablePrefix: '9x'",
        "--dialect mysql --role x --schema a.b|--schema: schema: 'a.b'",
        "--dialect mysql --role x --table t|--table: not an option",
        "--dialect mysql --role|--role: needs a value",
        "--dialect postgresql --role public|--role: user: 'public'",
        "--dialect postgresql --role current_user|--role: user: 'current_user'",
        "--dialect postgresql --role session_user|--role: user: 'session_user'",
        "--dialect postgresql --role pg_read_all_data|--role: user: 'pg_read_all_data'",
        "--dialect mysql --role public|--role: user: 'public'",
        "--dialect mysql --role current_user|--role: user: 'current_user'"
      })
  void refusesBadOptions_namingTheOption(String args, String message) {
    int status = run(args.split(" "));

    assertThat(status).isEqualTo(2);
    assertThat(text(out)).isEmpty();
    assertThat(text(err)).startsWith("outbox-ops grants: " + message);
  }

  @Test
  void help_printsUsage() {
    assertThat(run("--help")).isZero();
    assertThat(text(out)).isEqualTo(GrantsCommand.USAGE);
  }

  private int run(String... args) {
    return GrantsCommand.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private static String text(ByteArrayOutputStream stream) {
    return stream.toString(StandardCharsets.UTF_8);
  }
}
