package dev.lambdaoutbox.docs;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's documentation as the docs tests read it: every page ({@code README.md} and the
 * other Markdown files at the root, {@code docs/**}, each module's own), each split into its fenced
 * code blocks (by language), the inline code of its prose, its headings and its links. Tests find
 * what to check by scanning these, never by a page name or a marker, so text moved between pages
 * stays checked.
 */
public final class DocPages {
  public static final Path ROOT = PackagedFunction.projectRoot();

  private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*([A-Za-z0-9_+-]*)\\s*$");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern CHECKED_BY =
      Pattern.compile("^<!--\\s*checked by\\s+([A-Za-z0-9_.]+)\\s*-->$");
  private static final Pattern INLINE =
      Pattern.compile("(`+)([^`](?:.*?[^`])?)\\1", Pattern.DOTALL);
  private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
  private static final Pattern COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);

  private DocPages() {}

  /** Every page, in a stable order. */
  public static List<Page> all() {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> root = Files.list(ROOT);
        Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      root.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
      docs.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
      try (Stream<Path> modules = Files.list(ROOT)) {
        for (Path module : modules.filter(Files::isDirectory).toList()) {
          Path readme = module.resolve("README.md");
          if (Files.exists(module.resolve("pom.xml")) && Files.exists(readme)) {
            files.add(readme);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files.stream().sorted().map(Page::read).toList();
  }

  /** Every fenced block of every page. */
  public static List<CodeBlock> blocks() {
    return all().stream().flatMap(p -> p.blocks().stream()).toList();
  }

  /** Every fenced block whose language is one of {@code languages}. */
  public static List<CodeBlock> blocks(String... languages) {
    Set<String> wanted = Set.of(languages);
    return blocks().stream().filter(b -> wanted.contains(b.language())).toList();
  }

  /** One Markdown file. */
  public record Page(Path path, String text) {
    static Page read(Path path) {
      try {
        return new Page(path, Files.readString(path));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The path from the project root, e.g. {@code docs/operating.md}. */
    public String name() {
      return ROOT.relativize(path).toString();
    }

    public List<CodeBlock> blocks() {
      List<CodeBlock> blocks = new ArrayList<>();
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        Matcher open = FENCE.matcher(lines[i]);
        if (!open.matches()) {
          continue;
        }
        int indent = open.group(1).length();
        StringBuilder body = new StringBuilder();
        int j = i + 1;
        while (j < lines.length && !lines[j].strip().equals("```")) {
          String line = lines[j];
          body.append(
                  line.length() >= indent && line.substring(0, indent).isBlank()
                      ? line.substring(indent)
                      : line.stripLeading())
              .append('\n');
          j++;
        }
        blocks.add(
            new CodeBlock(
                this,
                i + 1,
                open.group(2).toLowerCase(Locale.ROOT),
                body.toString(),
                checkedBy(lines, i)));
        i = j;
      }
      return blocks;
    }

    private static Optional<String> checkedBy(String[] lines, int fence) {
      for (int k = fence - 1; k >= 0; k--) {
        if (lines[k].isBlank()) {
          continue;
        }
        Matcher m = CHECKED_BY.matcher(lines[k].strip());
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
      }
      return Optional.empty();
    }

    /** The page without its fenced blocks (each replaced by as many empty lines) and comments. */
    public String prose() {
      String[] lines = text.split("\n", -1);
      StringBuilder prose = new StringBuilder();
      boolean inside = false;
      for (String line : lines) {
        boolean fence = FENCE.matcher(line).matches() || (inside && line.strip().equals("```"));
        if (fence) {
          inside = !inside;
        }
        prose.append(inside || fence ? "" : line).append('\n');
      }
      return COMMENT.matcher(prose).replaceAll(m -> "\n".repeat(count(m.group(), '\n')));
    }

    /** Every inline code span of the prose, its text on one line. */
    public List<InlineCode> inlineCode() {
      String prose = prose();
      List<InlineCode> spans = new ArrayList<>();
      Matcher m = INLINE.matcher(prose);
      while (m.find()) {
        if (m.group(2).contains("\n\n")) {
          continue;
        }
        int line = 1 + count(prose.substring(0, m.start()), '\n');
        spans.add(new InlineCode(this, line, m.group(2).replace('\n', ' ').strip()));
      }
      return spans;
    }

    /** The headings of the prose, in order. */
    public List<String> headings() {
      List<String> headings = new ArrayList<>();
      for (String line : prose().split("\n")) {
        Matcher m = HEADING.matcher(line);
        if (m.matches()) {
          headings.add(m.group(2));
        }
      }
      return headings;
    }

    /** The anchors GitHub gives the headings ({@code #the-runbook}). */
    public Set<String> anchors() {
      Set<String> anchors = new LinkedHashSet<>();
      Map<String, Integer> seen = new HashMap<>();
      for (String heading : headings()) {
        String slug = slug(heading);
        int n = seen.merge(slug, 1, Integer::sum);
        anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
      }
      return anchors;
    }

    /** Every link of the prose: its line and target. */
    public List<Link> links() {
      String prose = prose();
      List<Link> links = new ArrayList<>();
      Matcher m = LINK.matcher(prose);
      while (m.find()) {
        links.add(new Link(this, 1 + count(prose.substring(0, m.start()), '\n'), m.group(2)));
      }
      return links;
    }

    /** The lines of the Markdown table whose header row is {@code header}, cells split. */
    public List<List<String>> table(String header) {
      List<List<String>> rows = new ArrayList<>();
      String[] lines = prose().split("\n");
      for (int i = 0; i < lines.length; i++) {
        if (lines[i].strip().equals(header)) {
          for (int j = i + 2; j < lines.length && lines[j].startsWith("|"); j++) {
            rows.add(cells(lines[j]));
          }
        }
      }
      return rows;
    }

    @Override
    public String toString() {
      return name();
    }
  }

  /** The cells of a table row {@code | a | b |}, stripped. */
  public static List<String> cells(String row) {
    String inner = row.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    List<String> cells = new ArrayList<>();
    for (String cell : inner.split("\\|", -1)) {
      cells.add(cell.strip());
    }
    return cells;
  }

  /** The inline code spans of {@code text}, e.g. of one table cell. */
  public static List<String> codeSpans(String text) {
    List<String> spans = new ArrayList<>();
    Matcher m = INLINE.matcher(text);
    while (m.find()) {
      spans.add(m.group(2).strip());
    }
    return spans;
  }

  /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
  public static String slug(String heading) {
    StringBuilder slug = new StringBuilder();
    heading
        .toLowerCase(Locale.ROOT)
        .codePoints()
        .forEach(
            c -> {
              if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
              } else if (c == ' ') {
                slug.append('-');
              }
            });
    return slug.toString();
  }

  private static int count(CharSequence text, char c) {
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == c) {
        n++;
      }
    }
    return n;
  }

  /** A fenced block: the page, the line of its opening fence, its language and its text. */
  public record CodeBlock(
      Page page, int line, String language, String text, Optional<String> checkedBy) {
    public String where() {
      return page.name() + ":" + line;
    }

    @Override
    public String toString() {
      return where() + " (" + (language.isEmpty() ? "no language" : language) + ")";
    }
  }

  /** An inline code span of a page's prose. */
  public record InlineCode(Page page, int line, String text) {
    public String where() {
      return page.name() + ":" + line;
    }
  }

  /** A Markdown link of a page's prose. */
  public record Link(Page page, int line, String target) {
    public String where() {
      return page.name() + ":" + line;
    }
  }
}
