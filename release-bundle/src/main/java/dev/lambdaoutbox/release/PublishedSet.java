package dev.lambdaoutbox.release;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which artifacts a release publishes, read from the checkout: the parent POM, {@code outbox-bom}
 * and every module the BOM lists. A module is published unless its pom.xml sets {@code
 * maven.deploy.skip} to true; the two must agree, and every published module must be built before
 * release-bundle, or {@link #problems()} says which line to change.
 */
record PublishedSet(
    String groupId, String version, List<String> artifactIds, List<String> problems) {
  static final String BOM = "outbox-bom";
  static final String BUNDLER = "release-bundle";

  static PublishedSet read(Path root) throws IOException {
    Pom parent = Pom.parse(Files.readAllBytes(root.resolve("pom.xml")), "pom.xml");
    List<String> problems = new ArrayList<>();
    Set<String> published = new LinkedHashSet<>();
    if (!"true".equals(parent.property("maven.deploy.skip"))) {
      published.add(parent.artifactId());
    }
    Pom bom = null;
    List<String> modules = parent.modules();
    int bundlerAt = modules.indexOf(BUNDLER);
    for (int i = 0; i < modules.size(); i++) {
      Path file = root.resolve(modules.get(i)).resolve("pom.xml");
      Pom module = Pom.parse(Files.readAllBytes(file), modules.get(i) + "/pom.xml");
      if (module.artifactId().equals(BOM)) {
        bom = module;
      }
      if ("true".equals(module.property("maven.deploy.skip"))) {
        continue;
      }
      published.add(module.artifactId());
      if (bundlerAt >= 0 && i > bundlerAt) {
        problems.add(
            "%s is published but listed after %s in the root pom.xml's <modules>: move it above, so that it is built first"
                .formatted(modules.get(i), BUNDLER));
      }
    }
    if (bom == null) {
      problems.add("no module of the root pom.xml is " + BOM);
      return new PublishedSet(
          parent.groupId(), parent.version(), List.copyOf(published), List.copyOf(problems));
    }
    Set<String> listed = new LinkedHashSet<>(List.of(parent.artifactId(), BOM));
    for (String managed : bom.managedArtifactIds()) {
      if (managed.startsWith(parent.groupId() + ":")) {
        listed.add(managed.substring(parent.groupId().length() + 1));
      }
    }
    for (String artifactId : published) {
      if (!listed.contains(artifactId)) {
        problems.add(
            ("%s is published (its pom.xml does not set maven.deploy.skip to true) but %s does not"
                    + " list it: add <dependency><groupId>%s</groupId><artifactId>%s</artifactId>"
                    + "<version>${project.version}</version></dependency> to the dependencyManagement"
                    + " of %s/pom.xml, or set maven.deploy.skip to true in its pom.xml")
                .formatted(artifactId, BOM, parent.groupId(), artifactId, BOM));
      }
    }
    for (String artifactId : listed) {
      if (!published.contains(artifactId)) {
        problems.add(
            ("%s lists %s, which is not a published module of this build: remove it from %s/pom.xml,"
                    + " or publish it (maven.deploy.skip not true)")
                .formatted(BOM, artifactId, BOM));
      }
    }
    return new PublishedSet(
        parent.groupId(), parent.version(), List.copyOf(published), List.copyOf(problems));
  }
}
