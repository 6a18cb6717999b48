package dev.lambdaoutbox.core;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A statement the database refused for want of a privilege, told so that the operator can act:
 * which table, which privileges the statement needs on it, and where the grants come from.
 * PostgreSQL names only the table ({@code permission denied for table t}, SQLState 42501); MySQL
 * and MariaDB name the table and the privilege ({@code DELETE command denied to user ... for table
 * t}, error 1142). What the statement needs is read from its SQL: {@code INSERT INTO t}, {@code
 * UPDATE t}, {@code DELETE FROM t}, a read ({@code FROM t}, {@code JOIN t}, and the {@code WHERE}
 * of an update or delete), and on PostgreSQL {@code UPDATE} for rows a {@code FOR UPDATE} or {@code
 * FOR SHARE} at the same level locks (all its tables, or those its {@code OF} names), and {@code
 * SELECT} for the conflict target an {@code INSERT ... ON CONFLICT (columns)} reads. A table
 * PostgreSQL does not find (SQLState 42P01) may be in a schema the user may not use: that is said
 * too.
 */
public final class PermissionDenied {
  private static final String POSTGRES_STATE = "42501";
  private static final String POSTGRES_NO_TABLE = "42P01";
  private static final int MYSQL_TABLE_DENIED = 1142;
  private static final int MYSQL_COLUMN_DENIED = 1143;

  private static final Pattern POSTGRES_TABLE =
      Pattern.compile("permission denied for (?:table|relation) \"?([\\w$]+)\"?");
  private static final Pattern POSTGRES_NO_RELATION =
      Pattern.compile("relation \"([\\w$]+)\" does not exist");
  private static final Pattern POSTGRES_SCHEMA =
      Pattern.compile("permission denied for schema \"?([\\w$]+)\"?");
  private static final Pattern MYSQL =
      Pattern.compile(
          "(\\w+) command denied to user [^ ]+ for (?:column [`'][^`']*[`'] in )?table"
              + " [`']?(?:[\\w$]+[`']?\\.[`']?)?([\\w$]+)[`']?");
  private static final Pattern TOKEN = Pattern.compile("'(?:[^']|'')*'|[\\w$.]+|[(),;]");
  private static final Set<String> NOT_ALIASES =
      Set.of(
          "where",
          "on",
          "join",
          "inner",
          "left",
          "right",
          "cross",
          "using",
          "set",
          "order",
          "group",
          "limit",
          "for",
          "window",
          "values",
          "union",
          "returning",
          "natural",
          "lateral",
          "straight_join",
          "full",
          "outer",
          "offset",
          "having");

  private PermissionDenied() {}

  /**
   * {@code e} itself, or, when it is a refused privilege, an exception with the same SQLState and
   * error code whose message also says what {@link #explain} says, {@code e} as its cause.
   */
  public static SQLException explained(SQLException e, String sql) {
    boolean denied =
        POSTGRES_STATE.equals(e.getSQLState())
            || POSTGRES_NO_TABLE.equals(e.getSQLState())
            || e.getErrorCode() == MYSQL_TABLE_DENIED
            || e.getErrorCode() == MYSQL_COLUMN_DENIED;
    String explanation = denied ? explain(e.getMessage(), sql) : null;
    if (explanation == null) {
      return e;
    }
    return new SQLException(explanation, e.getSQLState(), e.getErrorCode(), e);
  }

  /**
   * The database's refusal {@code message} followed by what the user lacks and how to give it; null
   * when {@code message} is not a refused privilege.
   */
  public static String explain(String message, String sql) {
    if (message == null) {
      return null;
    }
    String first = message.strip().lines().findFirst().orElse("");
    Matcher mysql = MYSQL.matcher(message);
    if (mysql.find()) {
      String table = mysql.group(2);
      String lacking = mysql.group(1).toUpperCase(Locale.ROOT);
      return first
          + ". The database user lacks "
          + lacking
          + " on table "
          + table
          + needs(sql, table, false)
          + grantAdvice();
    }
    Matcher postgres = POSTGRES_TABLE.matcher(message);
    if (postgres.find()) {
      String table = postgres.group(1);
      Set<Privilege> needed = privileges(sql, table, true);
      return first
          + ". The database user lacks "
          + (needed.size() == 1 ? "" : "one of ")
          + (needed.isEmpty() ? "a privilege" : list(needed))
          + " on table "
          + table
          + (needed.isEmpty() ? "" : ", which this statement needs")
          + grantAdvice();
    }
    Matcher missing = POSTGRES_NO_RELATION.matcher(message);
    if (missing.find() && privileges(sql, missing.group(1), false).size() > 0) {
      return first
          + ". No schema on the database user's search path that it may use (USAGE) holds table "
          + missing.group(1)
          + ": create the tables (OutboxSchema) or, where they are, give the user USAGE on their"
          + " schema and the schema on its search path"
          + grantAdvice();
    }
    Matcher schema = POSTGRES_SCHEMA.matcher(message);
    if (schema.find()) {
      return first + ". The database user lacks USAGE on schema " + schema.group(1) + grantAdvice();
    }
    return null;
  }

  private static String needs(String sql, String table, boolean locksNeedUpdate) {
    Set<Privilege> needed = privileges(sql, table, locksNeedUpdate);
    return needed.isEmpty() ? "" : " (this statement needs " + list(needed) + " on it)";
  }

  private static String grantAdvice() {
    return ": give it the grants that scripts/outbox-ops grants prints for what it does"
        + " (docs/database-user.md)";
  }

  private static String list(Set<Privilege> privileges) {
    return privileges.stream().map(Privilege::name).collect(Collectors.joining(", "));
  }

  /**
   * The privileges {@code sql} needs on {@code table}; with {@code locksNeedUpdate} (PostgreSQL),
   * {@code UPDATE} where it locks the table's rows.
   */
  static Set<Privilege> privileges(String sql, String table, boolean locksNeedUpdate) {
    List<String> tokens = new ArrayList<>();
    List<Integer> depths = new ArrayList<>();
    int depth = 0;
    Matcher m = TOKEN.matcher(sql == null ? "" : sql);
    while (m.find()) {
      String token = m.group();
      if (token.startsWith("'")) {
        continue;
      }
      if (token.equals(")")) {
        depth--;
      }
      tokens.add(token.toLowerCase(Locale.ROOT));
      depths.add(depth);
      if (token.equals("(")) {
        depth++;
      }
    }
    String name = table.toLowerCase(Locale.ROOT);
    Set<Privilege> needed = EnumSet.noneOf(Privilege.class);
    for (int i = 0; i < tokens.size(); i++) {
      if (!tokens.get(i).equals(name) && !tokens.get(i).endsWith("." + name)) {
        continue;
      }
      String before = i > 0 ? tokens.get(i - 1) : "";
      String beforeThat = i > 1 ? tokens.get(i - 2) : "";
      if (before.equals("into") && beforeThat.equals("insert")) {
        needed.add(Privilege.INSERT);
        if (arbitrated(tokens, depths, i)) {
          needed.add(Privilege.SELECT);
        }
      } else if (before.equals("update")) {
        needed.add(Privilege.UPDATE);
        needed.add(Privilege.SELECT);
      } else if (before.equals("from") && beforeThat.equals("delete")) {
        needed.add(Privilege.DELETE);
        needed.add(Privilege.SELECT);
      } else if (before.equals("from") || before.equals("join")) {
        needed.add(Privilege.SELECT);
        if (locksNeedUpdate && locked(tokens, depths, i)) {
          needed.add(Privilege.UPDATE);
        }
      }
    }
    return needed;
  }

  /**
   * Whether the INSERT into the table at token {@code at} names its conflict target ({@code ON
   * CONFLICT (columns)}), which PostgreSQL reads, needing {@code SELECT}.
   */
  private static boolean arbitrated(List<String> tokens, List<Integer> depths, int at) {
    int level = depths.get(at);
    for (int i = at + 1; i + 2 < tokens.size() && depths.get(i) >= level; i++) {
      if (depths.get(i) == level
          && tokens.get(i).equals("on")
          && tokens.get(i + 1).equals("conflict")
          && tokens.get(i + 2).equals("(")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the table read at token {@code at} is locked: a {@code FOR UPDATE} or {@code FOR SHARE}
   * follows at the same level of parentheses, before that level closes, naming its alias in {@code
   * OF} or naming none.
   */
  private static boolean locked(List<String> tokens, List<Integer> depths, int at) {
    int level = depths.get(at);
    String alias = at + 1 < tokens.size() ? tokens.get(at + 1) : "";
    if (alias.equals("as") && at + 2 < tokens.size()) {
      alias = tokens.get(at + 2);
    }
    if (NOT_ALIASES.contains(alias) || !alias.matches("[\\w$]+")) {
      alias = tokens.get(at);
    }
    for (int i = at + 1; i < tokens.size() - 1; i++) {
      if (depths.get(i) < level) {
        return false;
      }
      boolean lockingClause =
          depths.get(i) == level
              && tokens.get(i).equals("for")
              && (tokens.get(i + 1).equals("update") || tokens.get(i + 1).equals("share"));
      if (lockingClause) {
        if (i + 2 >= tokens.size() || !tokens.get(i + 2).equals("of")) {
          return true;
        }
        // OF a, b, ...: the aliases, each but the last followed by a comma.
        for (int j = i + 3; j < tokens.size(); j += 2) {
          if (tokens.get(j).equals(alias)) {
            return true;
          }
          if (j + 1 >= tokens.size() || !tokens.get(j + 1).equals(",")) {
            return false;
          }
        }
        return false;
      }
    }
    return false;
  }
}
