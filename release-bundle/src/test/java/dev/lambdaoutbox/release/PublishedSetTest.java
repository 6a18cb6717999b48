package dev.lambdaoutbox.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublishedSetTest {
  @Test
  void thisCheckout_publishesTheParentTheBomAndTheLibrariesUsersDependOn() throws IOException {
    PublishedSet set = PublishedSet.read(Path.of("..").toAbsolutePath().normalize());

    assertThat(set.problems()).isEmpty();
    assertThat(set.artifactIds())
        .containsExactlyInAnyOrder(
            "lambda-outbox-parent",
            "outbox-core",
            "outbox-writer-lib",
            "outbox-sqs-consumer",
            "outbox-spring",
            "lambda-telemetry",
            "outbox-bom");
  }

  @Test
  void publishedModuleMissingFromTheBom_isNamedWithTheLineToAdd(@TempDir Path root)
      throws IOException {
    checkout(root, List.of("outbox-bom", "outbox-model", "release-bundle"), "");

    assertThat(PublishedSet.read(root).problems())
        .singleElement()
        .asString()
        .startsWith("outbox-model is published")
        .contains(
            "add <dependency><groupId>dev.example</groupId><artifactId>outbox-model</artifactId>");
  }

  @Test
  void publishedModuleAfterReleaseBundle_isNamed(@TempDir Path root) throws IOException {
    checkout(
        root,
        List.of("outbox-bom", "release-bundle", "outbox-model"),
        "<dependency><groupId>dev.example</groupId><artifactId>outbox-model</artifactId></dependency>");

    assertThat(PublishedSet.read(root).problems())
        .containsExactly(
            "outbox-model is published but listed after release-bundle in the root pom.xml's"
                + " <modules>: move it above, so that it is built first");
  }

  /** A parent listing the modules; outbox-model published, release-bundle not. */
  private static void checkout(Path root, List<String> modules, String bomEntries)
      throws IOException {
    StringBuilder list = new StringBuilder();
    modules.forEach(m -> list.append("<module>").append(m).append("</module>"));
    module(
        root,
        ".",
        "<groupId>dev.example</groupId><artifactId>parent</artifactId><version>1</version>"
            + "<packaging>pom</packaging><modules>"
            + list
            + "</modules>");
    module(
        root,
        "outbox-bom",
        "<artifactId>outbox-bom</artifactId><packaging>pom</packaging>"
            + "<dependencyManagement><dependencies>"
            + bomEntries
            + "</dependencies></dependencyManagement>");
    module(root, "outbox-model", "<artifactId>outbox-model</artifactId>");
    module(
        root,
        "release-bundle",
        "<artifactId>release-bundle</artifactId>"
            + "<properties><maven.deploy.skip>true</maven.deploy.skip></properties>");
  }

  private static void module(Path root, String dir, String body) throws IOException {
    String parent =
        dir.equals(".")
            ? ""
            : "<parent><groupId>dev.example</groupId><artifactId>parent</artifactId><version>1</version></parent>";
    Files.createDirectories(root.resolve(dir));
    Files.writeString(
        root.resolve(dir).resolve("pom.xml"), "<project>" + parent + body + "</project>");
  }
}
