package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import dev.lambdaoutbox.docs.DocPages.Link;
import dev.lambdaoutbox.docs.DocPages.Page;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every fenced block of every page is one some test checks: its language is one the docs tests run
 * or compile (each of those tests takes every block of its language), or it has no language
 * (output, diagrams), or the line above it hands it to a named test that reads its page. Every link
 * between pages resolves, anchor included.
 */
class DocBlocksTest {
  /** Language to the test that checks every block of it. */
  static final Map<String, String> CHECKED_BY =
      Map.of(
          "sql", "DocSqlTest",
          "bash", "DocShellTest",
          "sh", "DocShellTest",
          "java", "DocJavaTest",
          "json", "ReprocessorDocSamplesTest",
          "xml", "DocXmlYamlTest",
          "yaml", "DocXmlYamlTest",
          "kotlin", "DocXmlYamlTest");

  @Test
  void everyBlock_isOfALanguageATestChecks_orIsOutput() {
    List<String> unknown = new ArrayList<>();
    for (CodeBlock block : DocPages.blocks()) {
      if (block.checkedBy().isEmpty()
          && !block.language().isEmpty()
          && !block.language().equals("text")
          && !CHECKED_BY.containsKey(block.language())) {
        unknown.add(block.toString());
      }
    }
    assertThat(unknown)
        .as("blocks no test checks: give them a language of %s, or none for output", CHECKED_BY)
        .isEmpty();
    assertThat(DocPages.blocks()).as("the pages have blocks at all").hasSizeGreaterThan(20);
  }

  @Test
  void aBlockHandedToAnotherTest_namesATestThatReadsItsPage() throws IOException {
    Map<String, Path> tests = testSources();
    for (CodeBlock block : DocPages.blocks()) {
      if (block.checkedBy().isEmpty()) {
        continue;
      }
      String test = block.checkedBy().get();
      assertThat(tests).as("%s is checked by %s", block, test).containsKey(test);
      assertThat(Files.readString(tests.get(test)))
          .as("%s reads %s", test, block.page().name())
          .contains(block.page().path().getFileName().toString());
    }
  }

  @Test
  void everyLinkBetweenPages_resolves_anchorIncluded() {
    List<String> broken = new ArrayList<>();
    for (Page page : DocPages.all()) {
      for (Link link : page.links()) {
        String target = link.target();
        if (target.matches("^[a-z]+:.*")) {
          continue; // https:, mailto:
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page.path() : page.path().getParent().resolve(file);
        if (!Files.exists(resolved)) {
          broken.add(link.where() + " " + target + ": no such file");
          continue;
        }
        if (anchor != null) {
          Page linked = file.isEmpty() ? page : Page.read(resolved.normalize());
          if (!linked.anchors().contains(anchor)) {
            broken.add(
                link.where() + " " + target + ": no such heading; it has " + linked.anchors());
          }
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  /** Test class simple name to its source file. */
  static Map<String, Path> testSources() throws IOException {
    try (Stream<Path> files = Files.walk(DocPages.ROOT.resolve("tests/src/test/java"))) {
      return files
          .filter(f -> f.toString().endsWith(".java"))
          .collect(
              Collectors.toMap(
                  f -> f.getFileName().toString().replace(".java", ""), f -> f, (a, b) -> a));
    }
  }
}
