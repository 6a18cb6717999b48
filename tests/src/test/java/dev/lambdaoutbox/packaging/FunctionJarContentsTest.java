package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.lambdaoutbox.packaging.BundledLibraries.Library;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.joda.time.DateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each function's shaded jar carries only libraries the function uses: every library its {@code
 * THIRD-PARTY.txt} lists has a class its handler reaches ({@link BundledLibraries}: class
 * references, reflection by name and service providers followed). A library nothing reaches fails
 * the build, named with its size: the Lambda events library and Joda-Time, which only the SQS
 * consumer helper uses, were once carried by both jars.
 */
class FunctionJarContentsTest {
  private static final Path ROOT = PackagedFunction.projectRoot();
  private static final Path REPOSITORY =
      Path.of(
          System.getProperty(
              "outbox.m2.repository", System.getProperty("user.home") + "/.m2/repository"));

  @ParameterizedTest
  @EnumSource(OutboxFunction.class)
  void everyBundledLibrary_isReachedFromTheHandler(OutboxFunction function) throws IOException {
    Path jar = PackagedFunction.lambdaJar(function.module());

    List<String> unused = unused(jar, function);

    assertThat(unused).as("libraries %s carries that its handler never reaches", jar).isEmpty();
  }

  @Test
  void aBundledLibraryNothingReaches_isNamedWithWhatToDo(@TempDir Path dir) throws Exception {
    Path jar =
        withLibraries(
            PackagedFunction.lambdaJar(OutboxFunction.POLLER.module()),
            dir.resolve("poller-with-events-lambda.jar"),
            SQSEvent.class,
            DateTime.class);

    List<String> unused = unused(jar, OutboxFunction.POLLER);

    assertThat(unused).hasSize(2);
    assertThat(unused.get(0))
        .startsWith("com.amazonaws:aws-lambda-java-events:")
        .contains("no class reached from dev.lambdaoutbox.poller.PollerHandler uses it")
        .contains("take it out of poller-function's dependencies");
    assertThat(unused.get(1)).startsWith("joda-time:joda-time:");
  }

  /** What {@code jar} bundles that {@code function}'s handler never reaches, one line each. */
  private static List<String> unused(Path jar, OutboxFunction function) throws IOException {
    String handler = function.handler().substring(0, function.handler().indexOf("::"));
    BundledLibraries bundled = BundledLibraries.read(jar);
    Set<String> reached = bundled.reachedFrom(handler);
    List<String> unused = new ArrayList<>();
    for (Library library : bundled.libraries(FunctionJarContentsTest::classesOf)) {
      if (library.classes().stream().noneMatch(reached::contains)) {
        unused.add(
            String.format(
                Locale.ROOT,
                "%s (%d classes, %.0f KB) is bundled, but no class reached from %s uses it: take it"
                    + " out of %s's dependencies (an exclusion where it comes in transitively)",
                library.coordinates(),
                library.classes().size(),
                library.bytes() / 1024.0,
                handler,
                function.module()));
      }
    }
    return unused;
  }

  /**
   * The classes of a library: a module of this build from its {@code target/classes}, any other
   * from its jar in the local Maven repository.
   */
  private static Set<String> classesOf(String coordinates) {
    String[] gav = coordinates.split(":");
    Path location =
        gav[0].equals("dev.lambdaoutbox")
            ? ROOT.resolve(gav[1]).resolve("target/classes")
            : REPOSITORY
                .resolve(gav[0].replace('.', '/'))
                .resolve(gav[1])
                .resolve(gav[2])
                .resolve(gav[1] + "-" + gav[2] + ".jar");
    if (!Files.exists(location)) {
      throw new IllegalStateException(
          coordinates + " is bundled, but " + location + " is not there to tell its classes");
    }
    return BundledLibraries.classesIn(location);
  }

  /**
   * A copy of {@code jar} that also bundles, and lists, the libraries holding {@code classes}: a
   * jar as the build made it before those libraries were taken out.
   */
  private static Path withLibraries(Path jar, Path copy, Class<?>... classes) throws Exception {
    Set<String> written = new HashSet<>();
    try (ZipFile original = new ZipFile(jar.toFile());
        OutputStream file = Files.newOutputStream(copy);
        ZipOutputStream out = new ZipOutputStream(file)) {
      StringBuilder listed = new StringBuilder();
      for (ZipEntry entry : original.stream().toList()) {
        byte[] bytes;
        try (InputStream in = original.getInputStream(entry)) {
          bytes = in.readAllBytes();
        }
        if (entry.getName().equals("THIRD-PARTY.txt")) {
          listed.append(new String(bytes, StandardCharsets.UTF_8));
          continue;
        }
        put(out, entry.getName(), bytes, written);
      }
      for (Class<?> c : classes) {
        Path library = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (ZipFile zip = new ZipFile(library.toFile())) {
          for (ZipEntry entry : zip.stream().toList()) {
            try (InputStream in = zip.getInputStream(entry)) {
              byte[] bytes = in.readAllBytes();
              if (entry.getName().endsWith("/pom.properties")) {
                Properties pom = new Properties();
                pom.load(new ByteArrayInputStream(bytes));
                String coordinates =
                    String.join(
                        ":",
                        pom.getProperty("groupId"),
                        pom.getProperty("artifactId"),
                        pom.getProperty("version"));
                if (!listed.toString().contains("(" + coordinates + " - ")) {
                  listed.append(
                      String.format(
                          "     (Apache-2.0) %s (%s - https://example.com)%n",
                          pom.getProperty("artifactId"), coordinates));
                }
              } else if (entry.getName().endsWith(".class")) {
                put(out, entry.getName(), bytes, written);
              }
            }
          }
        }
      }
      put(out, "THIRD-PARTY.txt", listed.toString().getBytes(StandardCharsets.UTF_8), written);
    }
    return copy;
  }

  private static void put(ZipOutputStream out, String name, byte[] bytes, Set<String> written)
      throws IOException {
    if (written.add(name)) {
      out.putNextEntry(new ZipEntry(name));
      out.write(bytes);
      out.closeEntry();
    }
  }
}
