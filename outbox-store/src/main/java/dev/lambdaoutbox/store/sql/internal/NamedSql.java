package dev.lambdaoutbox.store.sql.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A statement with named parameters ({@code :name}) as JDBC runs it: each {@code :name} becomes a
 * {@code ?}, and {@link #names()} says which value goes where (a name used twice is bound twice).
 * Quoted text, quoted identifiers, comments and PostgreSQL's {@code ::} casts are left alone.
 */
public record NamedSql(String positional, List<String> names) {
  private static final int CACHE_LIMIT = 512;
  private static final Map<String, NamedSql> CACHE = new ConcurrentHashMap<>();

  public NamedSql {
    names = List.copyOf(names);
  }

  /** The translation of {@code sql}, cached: the stores run the same statements again and again. */
  public static NamedSql of(String sql) {
    NamedSql cached = CACHE.get(sql);
    if (cached != null) {
      return cached;
    }
    NamedSql parsed = parse(sql);
    if (CACHE.size() >= CACHE_LIMIT) {
      CACHE.clear(); // statements with generated IN lists vary; keep the cache small
    }
    CACHE.put(sql, parsed);
    return parsed;
  }

  static NamedSql parse(String sql) {
    StringBuilder out = new StringBuilder(sql.length());
    List<String> names = new ArrayList<>();
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = closing(sql, i, c);
        out.append(sql, i, end);
        i = end;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        end = end < 0 ? n : end;
        out.append(sql, i, end);
        i = end;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
        out.append(sql, i, end);
        i = end;
      } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
        out.append("::");
        i += 2;
      } else if (c == ':' && i + 1 < n && Character.isLetter(sql.charAt(i + 1))) {
        int end = i + 1;
        while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
          end++;
        }
        names.add(sql.substring(i + 1, end));
        out.append('?');
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return new NamedSql(out.toString(), names);
  }

  /** The index just past the quote that closes the one at {@code start} (doubled quotes escape). */
  private static int closing(String sql, int start, char quote) {
    int i = start + 1;
    while (i < sql.length()) {
      if (sql.charAt(i) == quote) {
        if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return sql.length();
  }
}
