package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One command of a page's shell block, as a user copies it: continuation lines joined, the comment
 * cut off, split into words the way the shell splits them (quotes and {@code $(...)} kept whole),
 * leading {@code NAME=value} assignments apart from the command's own words.
 */
record ShellCommand(
    CodeBlock block, String text, Map<String, String> assignments, List<String> words) {

  /** The block's commands, in order; lines that are only a comment are left out. */
  static List<ShellCommand> of(CodeBlock block) {
    List<ShellCommand> commands = new ArrayList<>();
    StringBuilder logical = new StringBuilder();
    for (String line : block.text().split("\n")) {
      if (line.endsWith("\\")) {
        logical.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      logical.append(line);
      if (insideQuotes(logical)) {
        logical.append('\n'); // a quoted argument (a JSON document, say) spans lines
        continue;
      }
      List<String> words = words(logical.toString());
      logical.setLength(0);
      if (words.isEmpty()) {
        continue;
      }
      String text = String.join(" ", words);
      Map<String, String> assignments = new LinkedHashMap<>();
      while (!words.isEmpty() && words.get(0).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
        String word = words.remove(0);
        int eq = word.indexOf('=');
        assignments.put(word.substring(0, eq), unquote(word.substring(eq + 1)));
      }
      commands.add(new ShellCommand(block, text, assignments, words));
    }
    return commands;
  }

  /** Whether the text ends inside a single- or double-quoted string. */
  private static boolean insideQuotes(CharSequence text) {
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        quote = c == quote ? 0 : quote;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || Character.isWhitespace(text.charAt(i - 1)))) {
        return false;
      }
    }
    return quote != 0;
  }

  /** The program run: the first word, or empty for a line of assignments only. */
  String program() {
    return words.isEmpty() ? "" : words.get(0);
  }

  /** The words after {@code flag}, up to the next word starting with {@code --}. */
  List<String> after(String flag) {
    List<String> values = new ArrayList<>();
    int at = words.indexOf(flag);
    for (int i = at + 1; at >= 0 && i < words.size() && !words.get(i).startsWith("--"); i++) {
      values.add(unquote(words.get(i)));
    }
    return values;
  }

  /** The word after {@code flag}, or null. */
  String value(String flag) {
    int at = words.indexOf(flag);
    return at >= 0 && at + 1 < words.size() ? unquote(words.get(at + 1)) : null;
  }

  String where() {
    return block.where() + ": " + text;
  }

  /** Words as the shell splits them, up to a comment; quotes and {@code $(...)} kept whole. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    int depth = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        word.append(c);
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        word.append(c);
      } else if (c == '$' && i + 1 < line.length() && line.charAt(i + 1) == '(') {
        depth++;
        word.append("$(");
        i++;
      } else if (c == ')' && depth > 0) {
        depth--;
        word.append(c);
      } else if (depth > 0) {
        word.append(c);
      } else if (c == '#' && word.isEmpty()) {
        break;
      } else if (Character.isWhitespace(c)) {
        if (!word.isEmpty()) {
          words.add(word.toString());
          word.setLength(0);
        }
      } else {
        word.append(c);
      }
    }
    if (!word.isEmpty()) {
      words.add(word.toString());
    }
    return words;
  }

  /** A word without its outer quotes. */
  static String unquote(String word) {
    if (word.length() >= 2
        && (word.startsWith("\"") && word.endsWith("\"")
            || word.startsWith("'") && word.endsWith("'"))) {
      return word.substring(1, word.length() - 1);
    }
    return word;
  }
}
