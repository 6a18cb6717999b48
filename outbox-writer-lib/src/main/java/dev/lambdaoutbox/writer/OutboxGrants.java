package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.internal.GrantsScript;
import dev.lambdaoutbox.writer.internal.TableUses;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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

  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final String POSTGRES_DEFAULT_SCHEMA = "public";

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
    return GrantsScript.of(this, schema, dialect).statements(user);
  }

  /**
   * {@link #statements} as a script to run as the tables' owner (or an administrator), each
   * statement after a comment that says what it is for.
   */
  public String script(SqlDialect dialect, String user) {
    return GrantsScript.of(this, schema, dialect).script(user);
  }

  /** The {@code scripts/outbox-ops grants} command line that prints this script. */
  public String command(SqlDialect dialect, String user) {
    return GrantsScript.of(this, schema, dialect).command(user);
  }

  private String qualified(SqlDialect dialect, String table) {
    String in = schema(dialect);
    return in == null ? table : in + "." + table;
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
