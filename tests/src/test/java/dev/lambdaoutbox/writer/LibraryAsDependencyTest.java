package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The libraries as an application gets them before the first release: every {@code ./mvnw install
 * -pl MODULES -am} command of the docs' shell blocks, run verbatim in a copy of this checkout,
 * installs the parent POM, the BOM and the libraries into a private local repository under {@code
 * target/}; then a separate project ({@code src/test/resources/consumer-project}) imports the BOM,
 * declares both libraries without a version and a driver of its own, compiles against the installed
 * jars and runs its test on the test bed's PostgreSQL: an event appended in a committed transaction
 * is there, one in a rolled-back transaction is not.
 *
 * <p>The Maven settings it writes read third-party artifacts from the local repository this build
 * uses (as a file repository) and then Maven Central, releases only: the project's snapshots can
 * come from the private install and from nowhere else.
 */
class LibraryAsDependencyTest {
  private static final Pattern INSTALL =
      Pattern.compile("(?m)^\\./mvnw install -pl (\\S+) -am(?=\\s|$)");

  private static final Path ROOT = PackagedFunction.projectRoot();
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Path WORK = ROOT.resolve("tests/target/library-as-dependency");

  @Test
  void docsInstallCommands_letASeparateProjectImportTheBomBuildAndAppendInATransaction()
      throws Exception {
    Map<String, List<String>> commands = installCommands();
    assertThat(commands.keySet().stream().flatMap(m -> Stream.of(m.split(","))))
        .as("the docs install the BOM and both libraries")
        .contains("outbox-bom", "outbox-writer-lib", "outbox-sqs-consumer");
    Path repository = WORK.resolve("m2");
    deleteRecursively(repository.resolve("dev/lambdaoutbox"));
    deleteRecursively(WORK.resolve("checkout"));
    deleteRecursively(WORK.resolve("consumer"));
    Path settings = writeSettings();
    Path checkout = copyCheckout(commands.keySet());

    String version = System.getProperty("outbox.version");
    Path installed = repository.resolve("dev/lambdaoutbox");
    for (Map.Entry<String, List<String>> command : commands.entrySet()) {
      List<String> install = new ArrayList<>(command.getValue());
      install.set(0, checkout.resolve("mvnw").toString()); // ./mvnw, in the copy
      install.addAll(maven(settings, repository));
      install.addAll(List.of("-DskipTests", "-Dspotless.check.skip=true"));
      run(checkout, install, Map.of());
      for (String module : command.getKey().split(",")) {
        String packaging = module.endsWith("-bom") ? ".pom" : ".jar";
        assertThat(
                installed.resolve(
                    module + "/" + version + "/" + module + "-" + version + packaging))
            .isRegularFile();
      }
    }
    assertThat(installed.resolve("lambda-outbox-parent/" + version)).isDirectory();
    assertThat(installed.resolve("outbox-bom/" + version + "/outbox-bom-" + version + ".pom"))
        .content()
        .doesNotContain("<parent>");

    Path consumer = WORK.resolve("consumer");
    copyTree(ROOT.resolve("tests/src/test/resources/consumer-project"), consumer);
    List<String> build = new ArrayList<>(List.of(ROOT.resolve("mvnw").toString(), "test"));
    build.addAll(maven(settings, repository));
    build.add("-Doutbox.version=" + version);
    TestDatabase db = TestEndpoints.postgres();
    run(
        consumer,
        build,
        Map.of(
            "OUTBOX_JDBC_URL", db.jdbcUrl(),
            "OUTBOX_DB_USER", db.user(),
            "OUTBOX_DB_PASSWORD", db.password()));

    String report =
        Files.readString(
            consumer.resolve("target/surefire-reports/com.example.shop.ReservationOutboxTest.txt"));
    assertThat(report).contains("Tests run: 2, Failures: 0, Errors: 0, Skipped: 0");
  }

  private static List<String> maven(Path settings, Path repository) {
    return List.of("-B", "-q", "-s", settings.toString(), "-Dmaven.repo.local=" + repository);
  }

  /**
   * Settings that resolve releases from this build's local repository, then Maven Central, and
   * snapshots from nowhere but the private repository.
   */
  private static Path writeSettings() throws IOException {
    String cache =
        Path.of(
                System.getProperty(
                    "outbox.m2.repository", System.getProperty("user.home") + "/.m2/repository"))
            .toUri()
            .toString();
    String repositories =
        """
            <repository>
              <id>build-cache</id><url>%s</url>
              <releases><enabled>true</enabled></releases><snapshots><enabled>false</enabled></snapshots>
            </repository>
            <repository>
              <id>central</id><url>https://repo.maven.apache.org/maven2</url>
              <releases><enabled>true</enabled></releases><snapshots><enabled>false</enabled></snapshots>
            </repository>
        """
            .formatted(cache);
    String settings =
        """
        <settings>
          <profiles>
            <profile>
              <id>releases-only</id>
              <repositories>
        %s
              </repositories>
              <pluginRepositories>
        %s
              </pluginRepositories>
            </profile>
          </profiles>
          <activeProfiles><activeProfile>releases-only</activeProfile></activeProfiles>
        </settings>
        """
            .formatted(repositories, repositories.replace("repository>", "pluginRepository>"));
    Files.createDirectories(WORK);
    return Files.writeString(WORK.resolve("settings.xml"), settings);
  }

  /**
   * The docs' install commands, by the modules they name: {@code ./mvnw install -pl MODULES -am},
   * as written in a shell block (a trailing comment aside).
   */
  static Map<String, List<String>> installCommands() {
    Map<String, List<String>> commands = new LinkedHashMap<>();
    for (DocPages.CodeBlock block : DocPages.blocks("bash", "sh")) {
      Matcher m = INSTALL.matcher(block.text());
      while (m.find()) {
        commands.put(m.group(1), List.of("./mvnw", "install", "-pl", m.group(1), "-am"));
      }
    }
    return commands;
  }

  /**
   * What the install commands read: the root POM, mvnw and its JDK finder, every module's POM
   * (Maven reads the whole reactor even for {@code -pl}), and the sources of the modules they
   * install and of the project's modules those depend on ({@code -am}).
   */
  private static Path copyCheckout(Set<String> installed) throws IOException {
    Path checkout = WORK.resolve("checkout");
    for (String file : List.of("pom.xml", "mvnw", "scripts/lib/jdk.sh")) {
      copy(ROOT.resolve(file), checkout.resolve(file));
    }
    Matcher listed = MODULE.matcher(Files.readString(ROOT.resolve("pom.xml")));
    while (listed.find()) { // every module the root POM lists, nested ones (examples/...) too
      copy(
          ROOT.resolve(listed.group(1)).resolve("pom.xml"),
          checkout.resolve(listed.group(1)).resolve("pom.xml"));
    }
    Set<String> needed = new TreeSet<>();
    for (String modules : installed) {
      for (String module : modules.split(",")) {
        withProjectDependencies(module, needed);
      }
    }
    for (String module : needed) {
      if (Files.isDirectory(ROOT.resolve(module + "/src"))) { // a BOM has none
        copyTree(ROOT.resolve(module + "/src"), checkout.resolve(module + "/src"));
      }
    }
    return checkout;
  }

  /** {@code module} and the project's modules it depends on, transitively (module = folder). */
  private static void withProjectDependencies(String module, Set<String> into) throws IOException {
    if (!into.add(module)) {
      return;
    }
    Matcher dependency =
        Pattern.compile("<groupId>dev\\.lambdaoutbox</groupId>\\s*<artifactId>([^<]+)</artifactId>")
            .matcher(Files.readString(ROOT.resolve(module).resolve("pom.xml")));
    while (dependency.find()) {
      if (Files.exists(ROOT.resolve(dependency.group(1)).resolve("pom.xml"))) {
        withProjectDependencies(dependency.group(1), into);
      }
    }
  }

  private static void run(Path dir, List<String> command, Map<String, String> env)
      throws Exception {
    Path log = Files.createTempFile(WORK, "maven-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish in 10 minutes");
    }
    assertThat(process.exitValue())
        .as("%s in %s:%n%s", String.join(" ", command), dir, Files.readString(log))
        .isZero();
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        copy(file, to.resolve(from.relativize(file).toString()));
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
