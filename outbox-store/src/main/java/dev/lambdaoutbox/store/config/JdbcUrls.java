package dev.lambdaoutbox.store.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the functions read from a JDBC URL without connecting: its hosts, whether it sets a
 * parameter, and the URL fit to print. Both drivers accept credentials inside the URL ({@code
 * ?user=app&password=...}, MySQL Connector/J also {@code //app:secret@host} and {@code
 * (password=...)}): {@link #redact} hides every password they can carry, so that no message, log
 * line or {@code toString} shows one.
 */
public final class JdbcUrls {
  /** What stands in for a hidden value. */
  public static final String HIDDEN = "***";

  /** Any parameter whose name holds "password" (password, sslpassword, password1, ...). */
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)((?:^|[?&;(,])\\s*[^=&;?()\\s,]*password[^=&;?()\\s,]*\\s*=)([^&;)]*)");

  private JdbcUrls() {}

  /** {@code url} with the values of its password parameters and user-info password hidden. */
  public static String redact(String url) {
    if (url == null) {
      return null;
    }
    String redacted = url;
    int start = url.indexOf("//");
    if (start >= 0) {
      String rest = url.substring(start + 2);
      int end = authorityEnd(rest);
      List<String> entries = new ArrayList<>();
      for (String entry : splitHosts(rest.substring(0, end))) {
        UserInfo info = UserInfo.of(entry);
        entries.add(
            info == null ? entry : info.user() + ":" + HIDDEN + entry.substring(info.end()));
      }
      redacted = url.substring(0, start + 2) + String.join(",", entries) + rest.substring(end);
    }
    return PASSWORD_PARAMETER.matcher(redacted).replaceAll(m -> quote(m.group(1)) + HIDDEN);
  }

  /** The password values {@code url} carries, as written, for scrubbing a driver's messages. */
  public static Set<String> secrets(String url) {
    Set<String> secrets = new LinkedHashSet<>();
    if (url == null) {
      return secrets;
    }
    int start = url.indexOf("//");
    if (start >= 0) {
      String rest = url.substring(start + 2);
      for (String entry : splitHosts(rest.substring(0, authorityEnd(rest)))) {
        UserInfo info = UserInfo.of(entry);
        if (info != null) {
          secrets.add(info.password());
        }
      }
    }
    for (Matcher m = PASSWORD_PARAMETER.matcher(url); m.find(); ) {
      secrets.add(m.group(2).strip());
    }
    secrets.removeIf(String::isEmpty);
    return secrets;
  }

  /**
   * {@code text} (a driver's message, say) with {@code url} written redacted and each of its
   * secrets hidden.
   */
  public static String scrub(String text, String url) {
    if (text == null || url == null) {
      return text;
    }
    String scrubbed = text.replace(url, redact(url));
    for (String secret : secrets(url)) {
      scrubbed = scrubbed.replace(secret, HIDDEN);
    }
    return scrubbed;
  }

  /** Whether {@code url} sets parameter {@code name} (case-insensitive), in any of its forms. */
  public static boolean hasParameter(String url, String name) {
    String lower = url.toLowerCase(Locale.ROOT);
    String key = name.toLowerCase(Locale.ROOT);
    return Pattern.compile("[?&;(,]\\s*" + Pattern.quote(key) + "\\s*=").matcher(lower).find();
  }

  /**
   * The values {@code url} gives parameter {@code name} (case-insensitive), in every form, in
   * order, each stripped; empty when it sets none. Not for a password: its value is printed.
   */
  public static List<String> parameterValues(String url, String name) {
    Matcher m =
        Pattern.compile("(?i)[?&;(,]\\s*" + Pattern.quote(name) + "\\s*=([^&;),]*)").matcher(url);
    List<String> values = new ArrayList<>();
    while (m.find()) {
      values.add(m.group(1).strip());
    }
    return values;
  }

  /**
   * The hosts {@code url} names, in order; {@code localhost} for a URL that names none (as both
   * drivers default to it). A MySQL {@code address=(host=...)} or {@code (host=...,port=...)} host
   * gives its {@code host} value.
   */
  public static List<String> hosts(String url) {
    int start = url.indexOf("//");
    List<String> hosts = new ArrayList<>();
    if (start < 0) {
      hosts.add("localhost"); // jdbc:postgresql:database
      return hosts;
    }
    String rest = url.substring(start + 2);
    int end = authorityEnd(rest);
    for (String entry : splitHosts(rest.substring(0, end))) {
      String host = hostOf(entry);
      hosts.add(host.isEmpty() ? "localhost" : host);
    }
    if (hosts.isEmpty()) {
      hosts.add("localhost");
    }
    return hosts;
  }

  /**
   * Whether {@code host} is written as a loopback address: {@code localhost}, 127.0.0.0/8 or {@code
   * ::1}. Decided from the text alone (no lookup): a name that merely resolves to loopback counts
   * as remote.
   */
  public static boolean isLoopback(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.equals("localhost")
        || h.matches("127(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}")
        || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1");
  }

  /**
   * Where the host list ends: the first '/', '?' or '#' outside parentheses. Where an '@' follows
   * before the query, the '/' was part of a password (a host holds no '@', a database name hardly
   * ever), and the host list goes on to the first of them after that '@'.
   */
  private static int authorityEnd(String rest) {
    int end = separatorFrom(rest, 0);
    while (end < rest.length() && rest.charAt(end) == '/') {
      int query = separatorFrom(rest, end + 1, "?#");
      int at = rest.lastIndexOf('@', query - 1);
      if (at <= end) {
        break;
      }
      end = separatorFrom(rest, at + 1);
    }
    return end;
  }

  /** The first '/', '?' or '#' outside parentheses at or after {@code from}; the end if none. */
  private static int separatorFrom(String rest, int from) {
    return separatorFrom(rest, from, "/?#");
  }

  private static int separatorFrom(String rest, int from, String separators) {
    int depth = 0;
    for (int i = from; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth = Math.max(0, depth - 1);
      } else if (depth == 0 && separators.indexOf(c) >= 0) {
        return i;
      }
    }
    return rest.length();
  }

  /**
   * The {@code user:password} before a host entry's last '@' outside parentheses, so that a
   * password holding '@' or ':' is taken whole; {@code end} is where the '@' is.
   */
  private record UserInfo(String user, String password, int end) {
    static UserInfo of(String entry) {
      int depth = 0;
      int at = -1;
      for (int i = 0; i < entry.length(); i++) {
        char c = entry.charAt(i);
        if (c == '(') {
          depth++;
        } else if (c == ')') {
          depth = Math.max(0, depth - 1);
        } else if (depth == 0 && c == '@') {
          at = i;
        }
      }
      int colon = at < 0 ? -1 : entry.indexOf(':');
      if (colon < 0 || colon > at || entry.lastIndexOf('(', at) >= 0) {
        return null;
      }
      return new UserInfo(entry.substring(0, colon), entry.substring(colon + 1, at), at);
    }
  }

  private static List<String> splitHosts(String authority) {
    List<String> entries = new ArrayList<>();
    int depth = 0;
    int from = 0;
    for (int i = 0; i < authority.length(); i++) {
      char c = authority.charAt(i);
      if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        depth = Math.max(0, depth - 1);
      } else if (c == ',' && depth == 0) {
        entries.add(authority.substring(from, i));
        from = i + 1;
      }
    }
    entries.add(authority.substring(from));
    return entries;
  }

  private static String hostOf(String entry) {
    String e = entry.strip();
    Matcher keyed = Pattern.compile("(?i)host\\s*=\\s*([^,)\\s]+)").matcher(e);
    if (e.contains("(") && keyed.find()) {
      return keyed.group(1);
    }
    int at = e.lastIndexOf('@');
    if (at >= 0) {
      e = e.substring(at + 1);
    }
    if (e.startsWith("[")) {
      int close = e.indexOf(']');
      return close < 0 ? e : e.substring(0, close + 1);
    }
    int colon = e.indexOf(':');
    return colon < 0 ? e : e.substring(0, colon);
  }

  private static String quote(String text) {
    return Matcher.quoteReplacement(text);
  }

  /** Whether every host of {@code jdbcUrl} is written as a loopback address. */
  public static boolean onLoopback(String jdbcUrl) {
    return hosts(jdbcUrl).stream().allMatch(JdbcUrls::isLoopback);
  }
}
