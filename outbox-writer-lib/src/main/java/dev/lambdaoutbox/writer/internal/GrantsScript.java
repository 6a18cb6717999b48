package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxGrants;
import dev.lambdaoutbox.writer.OutboxGrants.TableGrant;
import dev.lambdaoutbox.writer.OutboxRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The text of {@link OutboxGrants}: its statements with every name quoted as the dialect quotes it,
 * the commented script, and the command line that prints it. What each role may do to each table is
 * {@link OutboxGrants#grants} (from {@link TableUses}); this class only writes it down.
 */
public final class GrantsScript {
  private static final Pattern USER = Pattern.compile("[a-z_][a-z0-9_]*");

  /**
   * Names a GRANT takes for something other than one user: PostgreSQL reads {@code public} as every
   * role even quoted, and MariaDB 10.11 has a PUBLIC role; the current, session and current role's
   * user (and PostgreSQL's reserved {@code none}, and {@code all}, which {@code ALTER ROLE} reads
   * as every role unquoted). PostgreSQL's {@code pg_} roles are its own: the predefined ones hold
   * many members ({@link #RESERVED_PREFIX}).
   */
  private static final Set<String> RESERVED =
      Set.of("public", "current_user", "session_user", "current_role", "none", "all");

  private static final String RESERVED_PREFIX = "pg_";
  private static final String POSTGRES_DEFAULT_SCHEMA = "public";
  private static final int LINE = 100;

  private final OutboxGrants source;
  private final Set<OutboxRole> roles;
  private final OutboxTables tables;
  private final String schema;
  private final SqlDialect dialect;

  private GrantsScript(OutboxGrants source, String schema, SqlDialect dialect) {
    this.source = source;
    this.roles = source.roles();
    this.tables = source.tables();
    this.schema = schema;
    this.dialect = dialect;
  }

  /**
   * The text of {@code grants} in {@code dialect}; {@code schema} as the builder was given it, null
   * for none.
   */
  public static GrantsScript of(OutboxGrants grants, String schema, SqlDialect dialect) {
    return new GrantsScript(grants, schema, dialect);
  }

  /** See {@link OutboxGrants#statements}. */
  public List<String> statements(String user) {
    String grantee = grantee(dialect, checkedUser(user));
    List<String> statements = new ArrayList<>();
    if (dialect == SqlDialect.POSTGRESQL) {
      String schema = identifier(dialect, source.schema(dialect));
      statements.add("GRANT USAGE ON SCHEMA " + schema + " TO " + grantee);
      if (setsSearchPath()) {
        statements.add("ALTER ROLE " + grantee + " SET search_path = " + schema);
      }
    }
    for (TableGrant grant : source.grants(dialect)) {
      List<String> parts = new ArrayList<>();
      for (String part : grant.table().split("\\.")) {
        parts.add(identifier(dialect, part));
      }
      statements.add(
          "GRANT "
              + grant.privilegeList()
              + " ON "
              + (dialect == SqlDialect.POSTGRESQL ? "TABLE " : "")
              + String.join(".", parts)
              + " TO "
              + grantee);
    }
    return statements;
  }

  /** See {@link OutboxGrants#script}. */
  public String script(String user) {
    List<String> statements = statements(user);
    List<TableGrant> grants = source.grants(dialect);
    StringBuilder sql = new StringBuilder();
    comment(
        sql,
        "Lambda Outbox: what "
            + roleNames()
            + " may do, "
            + (dialect == SqlDialect.POSTGRESQL ? "PostgreSQL" : "MySQL and MariaDB")
            + where()
            + (tables.prefix().isEmpty() ? "" : ", tables prefixed " + tables.prefix())
            + ". Run as the tables' owner; the user "
            + user
            + " must exist. Made by:");
    sql.append("-- ").append(command(user)).append('\n');
    int first = statements.size() - grants.size();
    for (int i = 0; i < statements.size(); i++) {
      if (i < first) {
        sql.append(
            i == 0
                ? "-- to reach the tables of the schema:\n"
                : "-- the functions name the tables without their schema:\n");
      } else {
        for (String use : grants.get(i - first).uses()) {
          comment(sql, use);
        }
      }
      sql.append(statements.get(i)).append(";\n");
    }
    return sql.toString();
  }

  /** {@code text} as comment lines of at most {@link #LINE} characters where words allow. */
  private static void comment(StringBuilder sql, String text) {
    StringBuilder line = new StringBuilder("--");
    for (String word : text.split(" ")) {
      if (line.length() > 4 && line.length() + 1 + word.length() > LINE) {
        sql.append(line).append('\n');
        line = new StringBuilder("--  ");
      }
      line.append(' ').append(word);
    }
    sql.append(line).append('\n');
  }

  /** See {@link OutboxGrants#command}. */
  public String command(String user) {
    StringJoiner command = new StringJoiner(" ");
    command.add("scripts/outbox-ops grants --dialect");
    command.add(dialect == SqlDialect.POSTGRESQL ? "postgresql" : "mysql");
    command.add("--role").add(user);
    command
        .add("--for")
        .add(roles.stream().map(OutboxRole::label).collect(Collectors.joining(",")));
    if (!tables.prefix().isEmpty()) {
      command.add("--prefix").add(tables.prefix());
    }
    if (schema != null) {
      command.add("--schema").add(schema);
    }
    return command.toString();
  }

  private String roleNames() {
    List<String> names = new ArrayList<>();
    for (OutboxRole role : roles) {
      names.add(
          switch (role) {
            case WRITER -> "the application's writer";
            case POLLER -> "the poller";
            case REPROCESSOR -> "the reprocessor";
          });
    }
    return names.size() == 1
        ? names.get(0)
        : String.join(", ", names.subList(0, names.size() - 1))
            + " and "
            + names.get(names.size() - 1);
  }

  private String where() {
    if (dialect == SqlDialect.POSTGRESQL) {
      return ", schema " + source.schema(dialect);
    }
    return schema == null ? ", in the current database (USE it first)" : ", database " + schema;
  }

  /**
   * A user of the functions alone, whose statements name the tables without a schema, needs the
   * schema on its search path; an application's user keeps its own.
   */
  private boolean setsSearchPath() {
    return dialect == SqlDialect.POSTGRESQL
        && schema != null
        && !schema.equals(POSTGRES_DEFAULT_SCHEMA)
        && !roles.contains(OutboxRole.WRITER);
  }

  /** The user as {@code dialect} names a grantee: a quoted identifier, or MySQL's user@host. */
  private static String grantee(SqlDialect dialect, String user) {
    Objects.requireNonNull(dialect, "dialect");
    return dialect == SqlDialect.POSTGRESQL
        ? identifier(dialect, user)
        : "'" + user.replace("\\", "\\\\").replace("'", "''") + "'@'%'";
  }

  /** {@code name} as a quoted identifier of {@code dialect}: exactly this name, whatever it is. */
  private static String identifier(SqlDialect dialect, String name) {
    return dialect == SqlDialect.POSTGRESQL
        ? '"' + name.replace("\"", "\"\"") + '"'
        : '`' + name.replace("`", "``") + '`';
  }

  private static String checkedUser(String user) {
    if (user == null
        || !USER.matcher(user).matches()
        || user.length() > OutboxGrants.MAX_USER_LENGTH) {
      throw new IllegalArgumentException(
          "user: '"
              + user
              + "' is not a database user name the grants can name; use up to "
              + OutboxGrants.MAX_USER_LENGTH
              + " lower-case letters, digits and underscores, starting with a letter or"
              + " underscore");
    }
    if (RESERVED.contains(user) || user.startsWith(RESERVED_PREFIX)) {
      throw new IllegalArgumentException(
          "user: '"
              + user
              + "' is reserved: in a GRANT it means "
              + (user.startsWith(RESERVED_PREFIX)
                  ? "a role of PostgreSQL's own (names starting pg_ are reserved to it)"
                  : user.equals("public") || user.equals("all")
                      ? "every role, not one user"
                      : "another user than the one created for the outbox, or none")
              + "; create a user of the outbox's own (e.g. outbox_functions) and name it");
    }
    return user;
  }
}
