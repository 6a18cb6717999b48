package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.core.OutboxTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the docs tests need to know of the code, read from its sources: the environment variables
 * the functions read, the metrics each function emits, the tables and columns the migrations
 * create, and every word the code, the template and the scripts contain.
 */
public final class CodeFacts {
  /** The modules whose code runs in the deployed functions. */
  private static final List<String> FUNCTION_MODULES =
      List.of("poller-function", "dlq-reprocessor-function", "outbox-store", "lambda-telemetry");

  private static final Pattern VARIABLE = Pattern.compile("\"(OUTBOX_[A-Z0-9_]+)\"");
  private static final Pattern METRIC =
      Pattern.compile("\\.(?:count|metric|values)\\(\\s*\"([A-Za-z]+)\"");
  private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private CodeFacts() {}

  /** Every {@code OUTBOX_*} variable the functions' code names (their configuration). */
  public static Set<String> functionVariables() {
    Set<String> variables = new TreeSet<>();
    for (String module : FUNCTION_MODULES) {
      Matcher m = VARIABLE.matcher(sources(DocPages.ROOT.resolve(module).resolve("src/main")));
      while (m.find()) {
        variables.add(m.group(1));
      }
    }
    return variables;
  }

  /** The metrics a function's module emits ({@code batch.count("Name", ...)}), in code order. */
  public static Set<String> emittedMetrics(String module) {
    Set<String> metrics = new LinkedHashSet<>();
    Matcher m = METRIC.matcher(sources(DocPages.ROOT.resolve(module).resolve("src/main")));
    while (m.find()) {
      metrics.add(m.group(1));
    }
    return metrics;
  }

  /**
   * The tables of an outbox without a prefix, as {@link OutboxTables} names them for the writer,
   * the migrations and the functions (each {@code String} accessor but the prefix).
   */
  public static Set<String> tables() {
    Set<String> tables = new TreeSet<>();
    OutboxTables defaults = OutboxTables.defaults();
    for (Method m : OutboxTables.class.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers())
          && !Modifier.isStatic(m.getModifiers())
          && m.getParameterCount() == 0
          && m.getReturnType() == String.class
          && !m.getName().equals("prefix")
          && !m.getName().equals("toString")) {
        try {
          tables.add((String) m.invoke(defaults));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return tables;
  }

  /** Every word of the migrations: table, column and index names among them. */
  public static Set<String> schemaWords() {
    return words(migrations());
  }

  /** Every word of the code, tests, template, scripts, build files and sample events. */
  public static Set<String> codeWords() {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> top = Files.list(DocPages.ROOT)) {
      for (Path p : top.toList()) {
        String name = p.getFileName().toString();
        if (name.startsWith(".") || name.equals("docs") || name.endsWith(".md")) {
          continue;
        }
        all.append(sources(p));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    all.append(sources(DocPages.ROOT.resolve(".ci")));
    return words(all.toString());
  }

  private static Set<String> words(String text) {
    Set<String> words = new TreeSet<>();
    Matcher m = WORD.matcher(text);
    while (m.find()) {
      words.add(m.group());
    }
    return words;
  }

  private static String migrations() {
    return sources(DocPages.ROOT.resolve("outbox-writer-lib/src/main/resources/db/outbox"));
  }

  /**
   * The text of every source file under {@code dir} (or the file itself), build output left out.
   */
  static String sources(Path dir) {
    if (!Files.exists(dir)) {
      return "";
    }
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f :
          files
              .filter(Files::isRegularFile)
              .filter(f -> !f.toString().contains("/target/"))
              .filter(f -> !f.toString().contains("/node_modules/"))
              .filter(f -> !f.toString().endsWith(".md"))
              .filter(
                  f ->
                      f.toString().matches(".*\\.(java|sql|yaml|yml|xml|json|sh|py|properties)$")
                          || !f.getFileName().toString().contains("."))
              .sorted()
              .toList()) {
        all.append(f.getFileName().toString().replaceAll("\\.[a-z]+$", "")).append('\n');
        try {
          String text = Files.readString(f);
          if (!text.contains("DocPages")) { // a test of the docs quotes them: no evidence
            all.append(text).append('\n');
          }
        } catch (java.nio.charset.MalformedInputException e) {
          // a binary file without an extension (e.g. a wrapper jar): no words to find
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all.toString();
  }
}
