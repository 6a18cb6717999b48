package dev.lambdaoutbox.release;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Lays out what the published modules staged ({@code target/release-inputs/<artifactId>/}) as a
 * Maven repository under {@code central-staging/}, writes the checksum files, and zips it into
 * {@code central-bundle.zip}, the file Central's Portal takes as one deployment. Only files staged
 * by this very build are taken: each module's {@code staged-by-build} stamp must equal the build's
 * start time. The zip is the same bytes for the same inputs.
 */
final class BundleAssembler {
  static final String STAMP = "staged-by-build";
  private static final FileTime ZIP_TIME = FileTime.fromMillis(1767225600000L); // 2026-01-01Z

  private BundleAssembler() {}

  /** Returns the zip; throws naming the module whose staged files are missing or stale. */
  static Path assemble(PublishedSet set, Path inputs, Path output, String buildStamp)
      throws IOException {
    Path staging = output.resolve("central-staging");
    deleteTree(staging);
    String groupPath = set.groupId().replace('.', '/');
    List<String> problems = new ArrayList<>();
    for (String artifactId : set.artifactIds()) {
      Path from = inputs.resolve(artifactId);
      Path stamp = from.resolve(STAMP);
      if (!Files.isRegularFile(stamp)) {
        problems.add(
            "%s staged nothing in this build (no %s): build the whole reactor with -Prelease"
                .formatted(artifactId, stamp));
        continue;
      }
      String stagedBy = Files.readString(stamp, StandardCharsets.UTF_8).trim();
      if (!stagedBy.equals(buildStamp)) {
        problems.add(
            "%s was staged by an earlier build (%s, this one started %s): build the whole reactor with -Prelease"
                .formatted(artifactId, stagedBy, buildStamp));
        continue;
      }
      Path to = staging.resolve(groupPath).resolve(artifactId).resolve(set.version());
      Files.createDirectories(to);
      try (Stream<Path> files = Files.list(from)) {
        for (Path file : files.sorted().toList()) {
          String name = file.getFileName().toString();
          if (name.equals(STAMP)) {
            continue;
          }
          byte[] content = Files.readAllBytes(file);
          Files.write(to.resolve(name), content);
          if (!name.endsWith(".asc")) {
            for (String[] algorithm : Checksums.ALL) {
              Files.writeString(
                  to.resolve(name + "." + algorithm[0]), Checksums.hex(algorithm[0], content));
            }
          }
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(String.join("\n", problems));
    }
    Path zip = output.resolve("central-bundle.zip");
    zip(staging, zip);
    return zip;
  }

  static void zip(Path directory, Path zip) throws IOException {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(directory)) {
      files =
          walk.filter(Files::isRegularFile)
              .sorted(Comparator.comparing(p -> directory.relativize(p).toString()))
              .toList();
    }
    try (OutputStream out = Files.newOutputStream(zip);
        ZipOutputStream zipOut = new ZipOutputStream(out)) {
      for (Path file : files) {
        ZipEntry entry = new ZipEntry(directory.relativize(file).toString().replace('\\', '/'));
        entry.setLastModifiedTime(ZIP_TIME);
        zipOut.putNextEntry(entry);
        zipOut.write(Files.readAllBytes(file));
        zipOut.closeEntry();
      }
    }
  }

  static void deleteTree(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(directory)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
