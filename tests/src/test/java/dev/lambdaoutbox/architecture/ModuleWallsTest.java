package dev.lambdaoutbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.Source;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The walls between the modules, over the main code of every module as built (each module's {@code
 * target/classes}, the tests module's fixtures and harnesses included; test code, and the
 * benchmarks' look at the store's plans, may look inside what they test):
 *
 * <ul>
 *   <li>a class uses another module only through that module's API: never a class of one of its
 *       {@code internal} packages, which are free to change at any time;
 *   <li>a package belongs to one module: a class may not join another module's package (a split
 *       package) to reach what the package keeps to itself.
 * </ul>
 *
 * What two modules both need lives in the module named for it, {@code outbox-core} for the table
 * contract and the event rules, as its API.
 */
class ModuleWallsTest {
  private static final Path ROOT = PackagedFunction.projectRoot();

  private static Map<Path, String> moduleByClasses;

  /** Modules the reactor builds after this one (the release bundle): checked by their sources. */
  private static final List<String> builtAfterTheTests = new ArrayList<>();

  private static JavaClasses mainClasses;

  @BeforeAll
  static void importMainClasses() throws IOException {
    moduleByClasses = new HashMap<>();
    boolean builtBeforeTheTests = true;
    for (String name : ReactorModules.inBuildOrder()) {
      if (!builtBeforeTheTests) {
        builtAfterTheTests.add(name);
        continue;
      }
      builtBeforeTheTests = !name.equals("tests");
      if (Files.isDirectory(ROOT.resolve(name).resolve("src/main/java"))) {
        Path classes = ROOT.resolve(name).resolve("target/classes");
        assertThat(classes).as("%s is compiled (./mvnw compile)", name).isDirectory();
        moduleByClasses.put(classes, name);
      }
    }
    mainClasses = new ClassFileImporter().importPaths(List.copyOf(moduleByClasses.keySet()));
  }

  @Test
  void theMainCodeOfEveryModule_isChecked() {
    Set<String> modules = new TreeSet<>();
    mainClasses.forEach(c -> modules.add(moduleOf(c)));
    assertThat(modules)
        .contains(
            "outbox-core",
            "outbox-writer-lib",
            "outbox-sqs-consumer",
            "outbox-store",
            "lambda-telemetry",
            "poller-function",
            "dlq-reprocessor-function",
            "tests");
  }

  /**
   * A module built after the tests (the release bundle, a build tool) has no classes yet when they
   * run; its sources may import no other module of the project at all. A sample application under
   * {@code examples/} uses the libraries as a user does: their API, never an internal package.
   */
  @Test
  void modulesBuiltAfterTheTests_importNoOtherModule() throws IOException {
    assertThat(builtAfterTheTests).as("modules after tests in pom.xml").contains("release-bundle");
    List<String> imports = new ArrayList<>();
    for (String name : builtAfterTheTests) {
      Path sources = ROOT.resolve(name).resolve("src/main/java");
      if (!Files.isDirectory(sources)) {
        continue;
      }
      boolean example = name.startsWith("examples/");
      try (var files = Files.walk(sources)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          String own = "import " + packageOf(Files.readString(file));
          Files.readString(file)
              .lines()
              .filter(l -> l.startsWith("import dev.lambdaoutbox.") && !l.startsWith(own))
              .filter(l -> !example || l.contains(".internal."))
              .forEach(l -> imports.add(name + ": " + ROOT.relativize(file) + ": " + l));
        }
      }
    }
    assertThat(imports).as("imports of the project's other modules").isEmpty();
  }

  private static String packageOf(String source) {
    Matcher m = Pattern.compile("(?m)^package ([\\w.]+);").matcher(source);
    if (!m.find()) {
      throw new IllegalStateException("a source file without a package statement");
    }
    return m.group(1) + ".";
  }

  @Test
  void noModule_usesAnotherModulesInternals() {
    ArchRule rule =
        classes()
            .should(useOtherModulesOnlyThroughTheirApi())
            .because(
                "an internal package may change at any time; what two modules need belongs to the"
                    + " API of one of them (outbox-core for the table contract and event rules)");

    rule.check(mainClasses);
  }

  @Test
  void noPackage_isSplitBetweenModules() {
    Map<String, String> moduleOfPackage = new HashMap<>();
    List<String> split = new ArrayList<>();
    for (JavaClass c : mainClasses) {
      String module = moduleOf(c);
      String first = moduleOfPackage.putIfAbsent(c.getPackageName(), module);
      if (first != null && !first.equals(module)) {
        split.add(
            c.getName()
                + " (module "
                + module
                + ") is in package "
                + c.getPackageName()
                + ", which belongs to module "
                + first
                + ": a package belongs to one module; move the class to a package of its own module");
      }
    }

    assertThat(split).as("classes in another module's package").isEmpty();
  }

  private static ArchCondition<JavaClass> useOtherModulesOnlyThroughTheirApi() {
    return new ArchCondition<>("use other modules only through their API (no internal package)") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        String from = moduleOf(origin);
        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
          JavaClass target = d.getTargetClass();
          String to = moduleOfOrNull(target);
          if (to != null
              && !to.equals(from)
              && isInternal(target)
              && !benchmarkLooksAtPlans(origin, target)) {
            events.add(
                SimpleConditionEvent.violated(
                    d,
                    origin.getName()
                        + " (module "
                        + from
                        + ") uses "
                        + target.getName()
                        + ", internal to module "
                        + to
                        + ": "
                        + d.getDescription()));
          }
        }
      }
    };
  }

  /**
   * The benchmarks measure the store's statements, and print the database's plans for them through
   * the store's plan seam ({@code StoreSql.explain}), as its tests do: they look inside what they
   * measure.
   */
  private static boolean benchmarkLooksAtPlans(JavaClass origin, JavaClass target) {
    return origin.getPackageName().equals("dev.lambdaoutbox.bench")
        && target.getPackageName().startsWith("dev.lambdaoutbox.store.internal");
  }

  private static boolean isInternal(JavaClass c) {
    return ("." + c.getPackageName() + ".").contains(".internal.");
  }

  private static String moduleOf(JavaClass c) {
    String module = moduleOfOrNull(c);
    if (module == null) {
      throw new IllegalStateException(c.getName() + " was imported from no module's classes");
    }
    return module;
  }

  /** The module whose {@code target/classes} the class came from; null for a library's. */
  private static String moduleOfOrNull(JavaClass c) {
    URI uri = c.getSource().map(Source::getUri).orElse(null);
    if (uri == null || !"file".equals(uri.getScheme())) {
      return null; // the JDK's, or a library's from its jar
    }
    Path file = Path.of(uri);
    for (Map.Entry<Path, String> module : moduleByClasses.entrySet()) {
      if (file.startsWith(module.getKey())) {
        return module.getValue();
      }
    }
    return null;
  }
}
