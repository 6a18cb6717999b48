package dev.lambdaoutbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The size a reader can hold in mind, over the main code of the product modules (every module the
 * reactor builds before {@code tests}; the tests module's fixtures and harnesses are not shipped):
 * no source file over {@value #MAX_LINES} lines, no package over {@value #MAX_CLASSES} top-level
 * classes. A file or package that outgrows them holds more than one idea: split it.
 */
class CodeShapeTest {
  static final int MAX_LINES = 350;
  static final int MAX_CLASSES = 20;

  private static final Path ROOT = PackagedFunction.projectRoot();

  private static List<Path> sources;

  @BeforeAll
  static void findProductSources() throws IOException {
    sources = new ArrayList<>();
    for (String module : ReactorModules.product()) {
      Path main = ROOT.resolve(module).resolve("src/main/java");
      if (Files.isDirectory(main)) {
        try (Stream<Path> files = Files.walk(main)) {
          files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
        }
      }
    }
  }

  @Test
  void theProductModules_areMeasured() {
    assertThat(sources)
        .as("main sources of the modules before tests in pom.xml")
        .anyMatch(f -> f.endsWith("OutboxStore.java"))
        .anyMatch(f -> f.endsWith("PollerHandler.java"))
        .anyMatch(f -> f.endsWith("OutboxWriter.java"));
  }

  @Test
  void noMainFile_isLongerThanTheLimit() throws IOException {
    Map<String, Long> tooLong = new TreeMap<>();
    for (Path source : sources) {
      long lines;
      try (Stream<String> all = Files.lines(source)) {
        lines = all.count();
      }
      if (lines > MAX_LINES) {
        tooLong.put(ROOT.relativize(source).toString(), lines);
      }
    }
    assertThat(tooLong).as("main files over %d lines (split by idea)", MAX_LINES).isEmpty();
  }

  @Test
  void noPackage_holdsMoreClassesThanTheLimit() {
    Map<String, Integer> classesByPackage = new TreeMap<>();
    for (Path source : sources) {
      if (!source.getFileName().toString().equals("package-info.java")) {
        classesByPackage.merge(ROOT.relativize(source.getParent()).toString(), 1, Integer::sum);
      }
    }
    classesByPackage.values().removeIf(count -> count <= MAX_CLASSES);
    assertThat(classesByPackage)
        .as("packages over %d top-level classes (split by concern)", MAX_CLASSES)
        .isEmpty();
  }
}
