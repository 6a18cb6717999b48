package dev.lambdaoutbox.writer.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a migration script into statements. Handles the subset our scripts use: no ';' inside
 * literals.
 */
public final class SqlScript {
  private SqlScript() {}

  public static List<String> statements(String script) {
    StringBuilder withoutComments = new StringBuilder(script.length());
    for (String line : script.split("\n", -1)) {
      int comment = line.indexOf("--");
      withoutComments.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
    }
    List<String> statements = new ArrayList<>();
    for (String part : withoutComments.toString().split(";")) {
      String sql = part.strip();
      if (!sql.isEmpty()) {
        statements.add(sql);
      }
    }
    return statements;
  }
}
