package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.core.OutboxTables;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a statement written as a text block into the one-line SQL a dialect runs. In the text:
 *
 * <ul>
 *   <li>{@code {messages}}, {@code {deadLetters}}, {@code {deadLetterAudit}}, {@code {parkedKeys}},
 *       {@code {idempotencyKeys}}, {@code {destinationHealth}}, {@code {pollerLeases}}, {@code
 *       {claimCursors}}: the tables' names from {@link OutboxTables}, prefix and schema as
 *       configured, or {@code {prefix}} before a table's name;
 *   <li>{@code {name}}: a fragment the caller passes (a generated column list, a cap);
 *   <li>{@code {at:now}}: the timestamp parameter {@code :now} as the dialect reads it in UTC;
 *   <li>{@code {utc:expression}}: a time expression as UTC text to the microsecond;
 *   <li>{@code {json:name}}: the JSON text parameter {@code :name} as a value for a JSON column;
 *   <li>{@code {index:name}}: after a table in FROM, read it along that index where the dialect's
 *       planner needs telling.
 * </ul>
 *
 * Named parameters ({@code :owner}) stay as they are. Line breaks and indentation become single
 * spaces: a statement runs, is cached and logged as one line. An undefined {@code {name}} fails at
 * start-up.
 */
public final class SqlTemplate {
  private static final Pattern NAME = Pattern.compile("\\{(\\w+)\\}");
  private static final Pattern FUNCTION = Pattern.compile("\\{(at|utc|json|index):([^{}]+)\\}");

  private final Syntax syntax;
  private final Map<String, String> tables = new HashMap<>();

  public SqlTemplate(OutboxTables tables, Syntax syntax) {
    this.syntax = syntax;
    this.tables.put("prefix", tables.prefix());
    this.tables.put("messages", tables.messages());
    this.tables.put("deadLetters", tables.deadLetters());
    this.tables.put("deadLetterAudit", tables.deadLetterAudit());
    this.tables.put("parkedKeys", tables.parkedKeys());
    this.tables.put("idempotencyKeys", tables.idempotencyKeys());
    this.tables.put("destinationHealth", tables.destinationHealth());
    this.tables.put("pollerLeases", tables.pollerLeases());
    this.tables.put("claimCursors", tables.claimCursors());
  }

  /** The dialect's syntax this template writes in. */
  public Syntax syntax() {
    return syntax;
  }

  /**
   * {@code template} filled in: the tables, then {@code fragments} (name, value, name, value...),
   * then the dialect's time and JSON syntax.
   */
  public String fill(String template, Object... fragments) {
    Map<String, String> names = new HashMap<>(tables);
    for (int i = 0; i < fragments.length; i += 2) {
      names.put((String) fragments[i], String.valueOf(fragments[i + 1]));
    }
    String named = replace(NAME, template, m -> known(names, m.group(1)));
    String sql = replace(FUNCTION, named, m -> function(m.group(1)).apply(m.group(2).strip()));
    return sql.strip().replaceAll("\\s*\\n\\s*", " ");
  }

  private static String known(Map<String, String> names, String name) {
    String value = names.get(name);
    if (value == null) {
      throw new IllegalArgumentException("SQL template names {" + name + "}, which is not defined");
    }
    return value;
  }

  private UnaryOperator<String> function(String name) {
    return switch (name) {
      case "at" -> syntax.timestampParam();
      case "utc" -> syntax.utcText();
      case "json" -> syntax.jsonParam();
      default -> syntax.alongIndex();
    };
  }

  private static String replace(
      Pattern pattern, String text, java.util.function.Function<Matcher, String> value) {
    Matcher m = pattern.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(value.apply(m)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
