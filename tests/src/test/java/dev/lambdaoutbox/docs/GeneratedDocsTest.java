package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages.Page;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The generated sections of the pages ({@link DocSections}) hold exactly what their generator
 * writes from today's template and code, and each generator's section is on exactly one page. With
 * {@code -Ddocs.write=true} ({@code make docs}) it rewrites them instead.
 */
class GeneratedDocsTest {
  private static final Pattern SECTION =
      Pattern.compile(
          "(<!-- BEGIN GENERATED (\\w+)[^>]*-->\n)(.*?)(<!-- END GENERATED \\2 -->)",
          Pattern.DOTALL);

  @Test
  void everyGeneratedSection_isWhatItsGeneratorWritesToday() throws IOException {
    boolean write = Boolean.getBoolean("docs.write");
    Map<String, Integer> found = new TreeMap<>();
    List<String> stale = new ArrayList<>();
    for (Page page : DocPages.all()) {
      Matcher m = SECTION.matcher(page.text());
      StringBuilder rewritten = new StringBuilder();
      while (m.find()) {
        String name = m.group(2);
        assertThat(DocSections.SECTIONS)
            .as("%s: a generator named %s", page, name)
            .containsKey(name);
        found.merge(name, 1, Integer::sum);
        String expected = "\n" + DocSections.SECTIONS.get(name).get() + "\n";
        if (!m.group(3).equals(expected)) {
          stale.add(page + ": section " + name + " should read:\n" + expected);
        }
        m.appendReplacement(
            rewritten, Matcher.quoteReplacement(m.group(1) + expected + m.group(4)));
      }
      m.appendTail(rewritten);
      if (write && !rewritten.toString().equals(page.text())) {
        Files.writeString(page.path(), rewritten.toString());
      }
    }
    assertThat(found.keySet()).isEqualTo(DocSections.SECTIONS.keySet());
    assertThat(found.values()).as("each section on one page").containsOnly(1);
    if (!write) {
      assertThat(stale).as("stale generated sections: run make docs").isEmpty();
    }
  }
}
