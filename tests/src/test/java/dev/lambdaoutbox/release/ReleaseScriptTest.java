package dev.lambdaoutbox.release;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/release refuses what must not be released, before building anything, and says which: each
 * case is a git repository of its own holding the files the checks read (the root pom.xml,
 * CHANGELOG.md, template.yaml and the script), made into a release checkout of 0.1.0 and then
 * spoilt one way.
 */
class ReleaseScriptTest {
  private static final Path ROOT = PackagedFunction.projectRoot();
  private static final String SECTION = "## [0.1.0] - 2026-12-01";

  @TempDir Path repo;

  /** A clean checkout tagged v0.1.0 whose files all say 0.1.0, unless told otherwise. */
  private void checkout(String version, boolean changelogSection, boolean tagged) throws Exception {
    Files.createDirectories(repo.resolve("scripts"));
    Files.copy(ROOT.resolve("scripts/release"), repo.resolve("scripts/release"));
    Files.writeString(
        repo.resolve("pom.xml"),
        Files.readString(ROOT.resolve("pom.xml")).replace("0.1.0-SNAPSHOT", version));
    String changelog = Files.readString(ROOT.resolve("CHANGELOG.md"));
    if (changelogSection) {
      changelog = changelog.replace("## [Unreleased]", "## [Unreleased]\n\n" + SECTION);
    }
    Files.writeString(repo.resolve("CHANGELOG.md"), changelog);
    Files.copy(ROOT.resolve("template.yaml"), repo.resolve("template.yaml"));
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=release test", "-c", "user.email=release@test", "commit", "-qm", "0.1.0");
    if (tagged) {
      git("tag", "v0.1.0");
    }
  }

  @Test
  void releaseCheckout_passesTheChecks() throws Exception {
    checkout("0.1.0", true, true);

    Result result = release("--preflight");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("release: v0.1.0: clean tree, release version, tag");
  }

  @Test
  void dirtyTree_isRefused() throws Exception {
    checkout("0.1.0", true, true);
    Files.writeString(repo.resolve("stray.txt"), "not committed");

    assertRefused(release(), "the work tree has local changes (1 files, e.g. 'stray.txt')");
  }

  @Test
  void snapshotVersion_isRefused() throws Exception {
    checkout("0.1.0-SNAPSHOT", true, true);

    assertRefused(release(), "the version in pom.xml is 0.1.0-SNAPSHOT, a SNAPSHOT");
  }

  @Test
  void changelogWithoutTheVersion_isRefused() throws Exception {
    checkout("0.1.0", false, true);

    assertRefused(release(), "CHANGELOG.md has no section '## [0.1.0] - YYYY-MM-DD'");
  }

  @Test
  void untaggedCommit_isRefused() throws Exception {
    checkout("0.1.0", true, false);

    assertRefused(release(), "HEAD (");
    assertThat(release().output()).contains(") is not tagged v0.1.0: tag the commit");
  }

  private void assertRefused(Result result, String message) throws Exception {
    assertThat(result.exitCode()).as(result.output()).isEqualTo(2);
    assertThat(result.output()).contains("release: " + message).contains("nothing was built");
    assertThat(repo.resolve("target")).doesNotExist();
    assertThat(git("status", "--porcelain").output())
        .as("the release run changed the checkout")
        .isEqualTo(result.dirtBefore());
  }

  private record Result(int exitCode, String output, String dirtBefore) {}

  private Result release(String... args) throws Exception {
    String before = git("status", "--porcelain").output();
    List<String> command = new ArrayList<>(List.of(repo.resolve("scripts/release").toString()));
    command.addAll(List.of(args));
    Result run = run(command);
    return new Result(run.exitCode(), run.output(), before);
  }

  private Result git(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Result result = run(command);
    assertThat(result.exitCode()).as("git %s: %s", args[0], result.output()).isZero();
    return result;
  }

  private Result run(List<String> command) throws Exception {
    Path log = Files.createTempFile("release-test", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(repo.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError(command + " did not finish in 2 minutes");
      }
      return new Result(process.exitValue(), Files.readString(log), "");
    } finally {
      Files.delete(log);
    }
  }
}
