package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxGrants;
import dev.lambdaoutbox.writer.OutboxRole;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code scripts/outbox-ops grants}: prints the {@link OutboxGrants#script} its options describe.
 * Exit status 0, or 2 with a message naming the option it refused.
 */
public final class GrantsCommand {
  static final String USAGE =
      """
      usage: scripts/outbox-ops grants --dialect postgresql|mysql --role USER
                                       [--for ROLES] [--prefix PREFIX] [--schema NAME]

      Prints the least-privilege GRANT statements of a database user of the outbox, to run as
      the tables' owner (the user must exist):
        --dialect  postgresql, or mysql (MySQL, Aurora MySQL and MariaDB)
        --role     the database user (role) to grant to, e.g. outbox_functions; never
                   public, current_user, session_user or a pg_ role, which are not one user
        --for      what it does, comma-separated: writer (the application: append, idempotency
                   keys, inbox and its purge), poller, reprocessor; default poller,reprocessor
                   (one user for both functions, as the template's DbSecretArn gives them)
        --prefix   the tables' prefix (OUTBOX_TABLE_PREFIX, OutboxTables.withPrefix); default none
        --schema   the PostgreSQL schema (default public) or MySQL database (default: the
                   current one) holding the tables
      """;

  private static final Set<String> OPTIONS =
      Set.of("--dialect", "--role", "--for", "--prefix", "--schema");

  private GrantsCommand() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns its exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    try {
      Parsed parsed = parse(args);
      if (parsed == null) {
        out.print(USAGE);
        return 0;
      }
      out.print(parsed.grants().script(parsed.dialect(), parsed.user()));
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("outbox-ops grants: " + e.getMessage());
      err.println("(scripts/outbox-ops grants --help says how to call it)");
      return 2;
    }
  }

  /** The options, checked. */
  public record Parsed(SqlDialect dialect, String user, OutboxGrants grants) {}

  /** Parses {@code args}; null for {@code --help}. Refuses with the option's name. */
  public static Parsed parse(String[] args) {
    SqlDialect dialect = null;
    String user = null;
    String roles = "poller,reprocessor";
    String prefix = "";
    String schema = null;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (option.equals("--help") || option.equals("-h")) {
        return null;
      }
      if (!OPTIONS.contains(option)) {
        throw new IllegalArgumentException(option + ": not an option of grants");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(option + ": needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--dialect" -> dialect = dialect(value);
        case "--role" -> user = value;
        case "--for" -> roles = value;
        case "--prefix" -> prefix = value;
        default -> schema = value;
      }
    }
    if (dialect == null) {
      throw new IllegalArgumentException("--dialect: missing; give postgresql or mysql");
    }
    if (user == null) {
      throw new IllegalArgumentException("--role: missing; give the database user to grant to");
    }
    OutboxGrants.Builder grants = OutboxGrants.builder().roles(roles(roles));
    try {
      grants.tables(OutboxTables.withPrefix(prefix));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--prefix: " + e.getMessage(), e);
    }
    if (schema != null) {
      try {
        grants.schema(schema);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--schema: " + e.getMessage(), e);
      }
    }
    OutboxGrants built = grants.build();
    try {
      built.statements(dialect, user);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--role: " + e.getMessage(), e);
    }
    return new Parsed(dialect, user, built);
  }

  private static SqlDialect dialect(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "postgresql", "postgres" -> SqlDialect.POSTGRESQL;
      case "mysql", "mariadb" -> SqlDialect.MYSQL;
      default ->
          throw new IllegalArgumentException(
              "--dialect: '" + value + "' is not a dialect; give postgresql or mysql");
    };
  }

  private static List<OutboxRole> roles(String value) {
    List<OutboxRole> roles = new ArrayList<>();
    for (String label : value.split(",", -1)) {
      OutboxRole role = null;
      for (OutboxRole r : OutboxRole.values()) {
        if (r.label().equals(label.strip().toLowerCase(Locale.ROOT))) {
          role = r;
        }
      }
      if (role == null) {
        throw new IllegalArgumentException(
            "--for: '" + label + "' is not a role; give writer, poller or reprocessor");
      }
      roles.add(role);
    }
    return roles;
  }
}
