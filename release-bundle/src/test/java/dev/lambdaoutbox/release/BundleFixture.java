package dev.lambdaoutbox.release;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/** Writes the staged files of a small parent + library release, as the release profile would. */
final class BundleFixture {
  static final String PARENT_POM =
      """
      <project><modelVersion>4.0.0</modelVersion>
        <groupId>dev.example</groupId><artifactId>parent</artifactId><version>%s</version>
        <packaging>pom</packaging><name>Parent</name><description>The parent</description>
        <url>https://example.dev/p</url>
        <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
        <developers><developer><name>The authors</name></developer></developers>
        <scm><connection>scm:git:https://example.dev/p.git</connection><url>https://example.dev/p</url></scm>
      </project>
      """;
  static final String LIB_POM =
      """
      <project><modelVersion>4.0.0</modelVersion>
        <parent><groupId>dev.example</groupId><artifactId>parent</artifactId><version>%s</version></parent>
        <artifactId>lib</artifactId><name>Lib</name><description>The library</description>
      </project>
      """;

  private BundleFixture() {}

  /** Stages parent and lib under inputs/, stamped with the given build. */
  static void stage(Path inputs, String version, String build, String parentPom, String libPom)
      throws IOException {
    Path parent = Files.createDirectories(inputs.resolve("parent"));
    Files.writeString(parent.resolve("parent-" + version + ".pom"), parentPom.formatted(version));
    Files.writeString(parent.resolve(BundleAssembler.STAMP), build);
    Path lib = Files.createDirectories(inputs.resolve("lib"));
    Files.writeString(lib.resolve("lib-" + version + ".pom"), libPom.formatted(version));
    Files.write(lib.resolve("lib-" + version + ".jar"), jar("dev/example/Lib.class"));
    Files.write(lib.resolve("lib-" + version + "-sources.jar"), jar("dev/example/Lib.java"));
    Files.write(lib.resolve("lib-" + version + "-javadoc.jar"), jar("index.html"));
    Files.writeString(lib.resolve(BundleAssembler.STAMP), build);
  }

  static PublishedSet set(String version) {
    return new PublishedSet(
        "dev.example", version, java.util.List.of("parent", "lib"), java.util.List.of());
  }

  static byte[] jar(String entry) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      zip.putNextEntry(new ZipEntry(entry));
      zip.write(entry.getBytes(StandardCharsets.UTF_8));
      zip.closeEntry();
    }
    return bytes.toByteArray();
  }
}
