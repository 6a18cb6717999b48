package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.internal.TableUses;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The least-privilege grants of a database user of the outbox: per table, exactly the privileges
 * the statements of its {@link OutboxRole roles} need, made from the tables of an {@link
 * OutboxTables} (its prefix honoured) in a PostgreSQL schema or a MySQL database.
 *
 * <pre>{@code
 * OutboxGrants grants = OutboxGrants.builder()
 *     .roles(OutboxRole.POLLER, OutboxRole.REPROCESSOR)   // one user for both functions
 *     .tables(OutboxTables.withPrefix("shop_"))
 *     .build();
 * String sql = grants.script(SqlDialect.POSTGRESQL, "outbox_functions");
 * }</pre>
 *
 * The user must exist; the grants are on tables, so run them again after a migration that adds a
 * table. {@code scripts/outbox-ops grants} prints {@link #script} from the command line.
 */
public final class OutboxGrants {
  /** The longest user name accepted: MySQL's limit, well within PostgreSQL's. */
  public static final int MAX_USER_LENGTH = 32;

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

  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final String POSTGRES_DEFAULT_SCHEMA = "public";
  private static final int LINE = 100;

  private final Set<OutboxRole> roles;
  private final OutboxTables tables;
  private final String schema;

  private OutboxGrants(Builder b) {
    this.roles = EnumSet.copyOf(b.roles);
    this.tables = b.tables;
    this.schema = b.schema;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The roles whose privileges these grants hold. */
  public Set<OutboxRole> roles() {
    return EnumSet.copyOf(roles);
  }

  public OutboxTables tables() {
    return tables;
  }

  /**
   * The schema (PostgreSQL; {@code public} when none was given) or database (MySQL; none: the
   * current one) holding the tables.
   */
  public String schema(SqlDialect dialect) {
    return dialect == SqlDialect.POSTGRESQL && schema == null ? POSTGRES_DEFAULT_SCHEMA : schema;
  }

  /** A table's privileges, and what the roles do with it. */
  public record TableGrant(String table, Set<Privilege> privileges, List<String> uses) {
    public TableGrant {
      privileges = Set.copyOf(privileges);
      uses = List.copyOf(uses);
    }

    /** The privileges in SQL order: SELECT, INSERT, UPDATE, DELETE. */
    public String privilegeList() {
      return EnumSet.copyOf(privileges).stream()
          .map(Privilege::name)
          .collect(Collectors.joining(", "));
    }
  }

  /**
   * Per table the roles use, in the order of the tables' first use: its name (schema- or
   * database-qualified when there is one, unquoted) and its privileges in {@code dialect}.
   */
  public List<TableGrant> grants(SqlDialect dialect) {
    Objects.requireNonNull(dialect, "dialect");
    Map<String, Set<TableUses.Access>> access = new LinkedHashMap<>();
    Map<String, List<String>> uses = new LinkedHashMap<>();
    for (TableUses.Use use : TableUses.USES) {
      if (roles.contains(use.role())) {
        String table = use.table().apply(tables);
        access.computeIfAbsent(table, t -> EnumSet.noneOf(TableUses.Access.class));
        access.get(table).addAll(use.access());
        uses.computeIfAbsent(table, t -> new ArrayList<>())
            .add(use.role().label() + ": " + use.why());
      }
    }
    List<TableGrant> grants = new ArrayList<>();
    for (Map.Entry<String, Set<TableUses.Access>> e : access.entrySet()) {
      grants.add(
          new TableGrant(
              qualified(dialect, e.getKey()),
              TableUses.privileges(e.getValue(), dialect),
              uses.get(e.getKey())));
    }
    return grants;
  }

  /**
   * The statements that give {@code user} these grants, without terminators: the schema's {@code
   * USAGE} and, for a user of the functions alone in a schema other than {@code public}, its search
   * path (PostgreSQL), then one {@code GRANT} per table. Every name is quoted, the user as the
   * dialect quotes a grantee ({@code "user"}; MySQL {@code 'user'@'%'}).
   *
   * @throws IllegalArgumentException naming {@code user} when it is no plain name or one the
   *     databases reserve ({@code public}, {@code current_user}, {@code pg_...})
   */
  public List<String> statements(SqlDialect dialect, String user) {
    String grantee = grantee(dialect, checkedUser(user));
    List<String> statements = new ArrayList<>();
    if (dialect == SqlDialect.POSTGRESQL) {
      String schema = identifier(dialect, schema(dialect));
      statements.add("GRANT USAGE ON SCHEMA " + schema + " TO " + grantee);
      if (setsSearchPath(dialect)) {
        statements.add("ALTER ROLE " + grantee + " SET search_path = " + schema);
      }
    }
    for (TableGrant grant : grants(dialect)) {
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

  /**
   * {@link #statements} as a script to run as the tables' owner (or an administrator), each
   * statement after a comment that says what it is for.
   */
  public String script(SqlDialect dialect, String user) {
    List<String> statements = statements(dialect, user);
    List<TableGrant> grants = grants(dialect);
    StringBuilder sql = new StringBuilder();
    comment(
        sql,
        "Lambda Outbox: what "
            + roleNames()
            + " may do, "
            + (dialect == SqlDialect.POSTGRESQL ? "PostgreSQL" : "MySQL and MariaDB")
            + where(dialect)
            + (tables.prefix().isEmpty() ? "" : ", tables prefixed " + tables.prefix())
            + ". Run as the tables' owner; the user "
            + user
            + " must exist. Made by:");
    sql.append("-- ").append(command(dialect, user)).append('\n');
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

  /** The {@code scripts/outbox-ops grants} command line that prints this script. */
  public String command(SqlDialect dialect, String user) {
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

  private String where(SqlDialect dialect) {
    if (dialect == SqlDialect.POSTGRESQL) {
      return ", schema " + schema(dialect);
    }
    return schema == null ? ", in the current database (USE it first)" : ", database " + schema;
  }

  /**
   * A user of the functions alone, whose statements name the tables without a schema, needs the
   * schema on its search path; an application's user keeps its own.
   */
  private boolean setsSearchPath(SqlDialect dialect) {
    return dialect == SqlDialect.POSTGRESQL
        && schema != null
        && !schema.equals(POSTGRES_DEFAULT_SCHEMA)
        && !roles.contains(OutboxRole.WRITER);
  }

  private String qualified(SqlDialect dialect, String table) {
    String in = schema(dialect);
    return in == null ? table : in + "." + table;
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
    if (user == null || !USER.matcher(user).matches() || user.length() > MAX_USER_LENGTH) {
      throw new IllegalArgumentException(
          "user: '"
              + user
              + "' is not a database user name the grants can name; use up to "
              + MAX_USER_LENGTH
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

  /** Configures {@link OutboxGrants}; {@link #roles} is required. */
  public static final class Builder {
    private Set<OutboxRole> roles = EnumSet.noneOf(OutboxRole.class);
    private OutboxTables tables = OutboxTables.defaults();
    private String schema;

    private Builder() {}

    /** What the user does: one role, or several for one user doing the work of each. */
    public Builder roles(OutboxRole... roles) {
      return roles(List.of(roles));
    }

    public Builder roles(Iterable<OutboxRole> roles) {
      Set<OutboxRole> chosen = EnumSet.noneOf(OutboxRole.class);
      for (OutboxRole role : roles) {
        chosen.add(Objects.requireNonNull(role, "roles: must not contain null"));
      }
      this.roles = chosen;
      return this;
    }

    /** The tables, with their prefix; the outbox's own names without one by default. */
    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /**
     * The PostgreSQL schema (default {@code public}) or MySQL database (default: the one current
     * when the grants run) holding the tables. A plain lower-case identifier.
     */
    public Builder schema(String schema) {
      if (schema == null || !SCHEMA.matcher(schema).matches()) {
        throw new IllegalArgumentException(
            "schema: '"
                + schema
                + "' is not a schema or database name the grants can name; use up to 63"
                + " lower-case letters, digits and underscores, starting with a letter or"
                + " underscore");
      }
      this.schema = schema;
      return this;
    }

    public OutboxGrants build() {
      if (roles.isEmpty()) {
        throw new IllegalArgumentException(
            "roles: name at least one of writer, poller, reprocessor");
      }
      return new OutboxGrants(this);
    }
  }
}
