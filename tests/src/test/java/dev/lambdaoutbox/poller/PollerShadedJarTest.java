package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The deployable jar of the poller (built by the poller-function module's package phase, before
 * this module's tests) carries the JDK-based HTTP client and neither Netty nor the Apache client.
 */
class PollerShadedJarTest {
  @Test
  void shadedJar_hasTheHandlerAndUrlConnectionClient_andNoNettyOrApacheHttpClasses()
      throws IOException {
    List<String> entries;
    try (JarFile jar = new JarFile(shadedJar().toFile())) {
      entries = jar.stream().map(JarEntry::getName).toList();
    }

    assertThat(entries)
        .contains(
            "dev/lambdaoutbox/poller/PollerHandler.class",
            "software/amazon/awssdk/http/urlconnection/UrlConnectionHttpClient.class",
            "com/amazonaws/services/lambda/runtime/RequestStreamHandler.class");
    assertThat(entries)
        .noneMatch(
            e ->
                e.startsWith("io/netty/")
                    || e.startsWith("org/apache/http/")
                    || e.startsWith("org/apache/hc/")
                    || e.startsWith("software/amazon/awssdk/http/apache/")
                    || e.startsWith("software/amazon/awssdk/http/nio/netty/"));
  }

  private static Path shadedJar() throws IOException {
    Path target = Path.of("..", "poller-function", "target");
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().matches("poller-function-.*-lambda\\.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no poller-function-*-lambda.jar in "
                          + target.toAbsolutePath().normalize()
                          + "; build with ./mvnw -pl tests -am verify so the function is packaged"
                          + " first"));
    }
  }
}
