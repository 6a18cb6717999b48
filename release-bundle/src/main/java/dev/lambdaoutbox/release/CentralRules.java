package dev.lambdaoutbox.release;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Maven Central's requirements for a deployment, checked on the bundle zip as it would be uploaded
 * (central.sonatype.org, "Requirements"): Maven repository layout; a POM per component with
 * coordinates matching its path, name, description, url, at least one license (name and url), at
 * least one developer and scm (url and connection), each either in the POM or in its parent POM
 * within the bundle; for a jar, its {@code -sources.jar} and {@code -javadoc.jar}; {@code .md5} and
 * {@code .sha1} beside every file, matching it; with signing on, an ASCII-armoured {@code .asc}
 * beside every file; and, for a final release, no SNAPSHOT version.
 */
final class CentralRules {
  private static final String SIGNATURE = "-----BEGIN PGP SIGNATURE-----";

  /** Violations fail the bundle; notes are printed with it. */
  record Result(List<String> components, List<String> violations, List<String> notes) {}

  private CentralRules() {}

  static Result check(Path zip, boolean signed, boolean finalRelease) throws IOException {
    Map<String, byte[]> files = read(zip);
    Map<String, Map<String, byte[]>> components = new TreeMap<>();
    List<String> violations = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      int slash = file.getKey().lastIndexOf('/');
      if (slash < 0) {
        violations.add(file.getKey() + ": a file outside any group/artifact/version folder");
        continue;
      }
      components
          .computeIfAbsent(file.getKey().substring(0, slash), k -> new TreeMap<>())
          .put(file.getKey().substring(slash + 1), file.getValue());
    }
    if (components.isEmpty()) {
      violations.add(zip + " holds no component");
    }
    Map<String, Pom> poms = new TreeMap<>();
    for (Map.Entry<String, Map<String, byte[]>> component : components.entrySet()) {
      String[] parts = component.getKey().split("/");
      if (parts.length < 3) {
        violations.add(component.getKey() + ": not a group/artifact/version folder");
        continue;
      }
      String artifactId = parts[parts.length - 2];
      String version = parts[parts.length - 1];
      byte[] pom = component.getValue().get(artifactId + "-" + version + ".pom");
      if (pom != null) {
        try {
          poms.put(artifactId, Pom.parse(pom, component.getKey()));
        } catch (IllegalArgumentException e) {
          violations.add(e.getMessage());
        }
      }
    }
    List<String> summary = new ArrayList<>();
    for (Map.Entry<String, Map<String, byte[]>> component : components.entrySet()) {
      String[] parts = component.getKey().split("/");
      if (parts.length < 3) {
        continue;
      }
      String groupId = String.join(".", List.of(parts).subList(0, parts.length - 2));
      String artifactId = parts[parts.length - 2];
      String version = parts[parts.length - 1];
      String base = artifactId + "-" + version;
      Map<String, byte[]> content = component.getValue();
      String where = groupId + ":" + artifactId + ":" + version;
      summary.add(where + " (" + content.size() + " files)");

      if (version.endsWith("-SNAPSHOT")) {
        if (finalRelease) {
          violations.add(where + ": a SNAPSHOT version; Central takes releases only");
        } else if (notes.isEmpty()) {
          notes.add(
              "version "
                  + version
                  + " is a SNAPSHOT: this bundle is a rehearsal, which Central would refuse;"
                  + " scripts/release builds the real one from a release tag");
        }
      }
      for (String name : content.keySet()) {
        if (!name.startsWith(base + ".") && !name.startsWith(base + "-")) {
          violations.add(where + ": " + name + " is not named " + base + "[-classifier].extension");
        }
      }
      Pom pom = poms.get(artifactId);
      if (pom == null) {
        violations.add(where + ": no " + base + ".pom");
        continue;
      }
      if (!pom.groupId().equals(groupId)
          || !pom.artifactId().equals(artifactId)
          || !pom.version().equals(version)) {
        violations.add(
            "%s: the POM says %s:%s:%s"
                .formatted(where, pom.groupId(), pom.artifactId(), pom.version()));
      }
      requireElement(violations, where, pom, poms, "name", Pom::name);
      requireElement(violations, where, pom, poms, "description", Pom::description);
      requireElement(violations, where, pom, poms, "url", Pom::url);
      requireElement(
          violations, where, pom, poms, "licenses/license (name and url)", p -> join(p.licenses()));
      requireElement(
          violations, where, pom, poms, "developers/developer", p -> join(p.developers()));
      requireElement(violations, where, pom, poms, "scm/url", Pom::scmUrl);
      requireElement(violations, where, pom, poms, "scm/connection", Pom::scmConnection);

      if (pom.packaging().equals("jar")) {
        requireJar(violations, where, content, base + ".jar", ".class");
        requireJar(violations, where, content, base + "-sources.jar", ".java");
        requireJar(violations, where, content, base + "-javadoc.jar", "index.html");
      }
      for (Map.Entry<String, byte[]> file : content.entrySet()) {
        String name = file.getKey();
        if (Checksums.isChecksum(name) || name.endsWith(".asc")) {
          continue;
        }
        for (String[] algorithm : Checksums.ALL) {
          byte[] sum = content.get(name + "." + algorithm[0]);
          if (sum == null) {
            if (Checksums.REQUIRED.contains(algorithm[0])) {
              violations.add(where + ": no " + name + "." + algorithm[0]);
            }
          } else if (!new String(sum, StandardCharsets.US_ASCII)
              .trim()
              .startsWith(Checksums.hex(algorithm[0], file.getValue()))) {
            violations.add(where + ": " + name + "." + algorithm[0] + " does not match " + name);
          }
        }
        byte[] signature = content.get(name + ".asc");
        if (signed && signature == null) {
          violations.add(where + ": no " + name + ".asc (signing is on)");
        } else if (signature != null
            && !new String(signature, StandardCharsets.US_ASCII).startsWith(SIGNATURE)) {
          violations.add(where + ": " + name + ".asc is not an ASCII-armoured PGP signature");
        }
      }
    }
    return new Result(List.copyOf(summary), List.copyOf(violations), List.copyOf(notes));
  }

  /** Present in the POM or, as Central allows, inherited from its parent within the bundle. */
  private static void requireElement(
      List<String> violations,
      String where,
      Pom pom,
      Map<String, Pom> poms,
      String element,
      Function<Pom, String> value) {
    for (Pom p = pom; p != null; p = parentOf(p, poms).orElse(null)) {
      if (!value.apply(p).isBlank()) {
        return;
      }
    }
    violations.add(where + ": the POM has no " + element + ", nor has a parent POM in the bundle");
  }

  private static Optional<Pom> parentOf(Pom pom, Map<String, Pom> poms) {
    return pom.parentArtifactId().map(poms::get);
  }

  private static String join(List<String> values) {
    return String.join(", ", values);
  }

  private static void requireJar(
      List<String> violations, String where, Map<String, byte[]> content, String name, String needs)
      throws IOException {
    byte[] jar = content.get(name);
    if (jar == null) {
      violations.add(where + ": no " + name);
      return;
    }
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
      for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
        if (entry.getName().endsWith(needs)) {
          return;
        }
      }
    }
    violations.add(where + ": " + name + " holds no " + needs + " file");
  }

  private static Map<String, byte[]> read(Path zip) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    try (InputStream raw = Files.newInputStream(zip);
        ZipInputStream in = new ZipInputStream(raw)) {
      for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
        if (!entry.isDirectory()) {
          files.put(entry.getName(), in.readAllBytes());
        }
      }
    }
    return files;
  }
}
