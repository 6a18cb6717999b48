package dev.lambdaoutbox.release;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The facts a release states in several places agree: the Maven version, the SAR listing's
 * SemanticVersion and source tag, the one project URL (POM, scm, SAR home page, docs), and the
 * changelog's section for the coming release.
 */
class ReleaseMetadataTest {
  private static final Path ROOT = PackagedFunction.projectRoot();
  private static final String URL = "https://github.com/lambda-outbox/lambda-outbox";

  private static String first(String text, String regex) {
    Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
    assertThat(m.find()).as("no match for %s", regex).isTrue();
    return m.group(1);
  }

  @Test
  void sarListing_isTheMavenVersionAtItsTag() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    String template = Files.readString(ROOT.resolve("template.yaml"));
    String version =
        first(pom, "<artifactId>lambda-outbox-parent</artifactId>\\s*<version>([^<]+)</version>")
            .replace("-SNAPSHOT", "");

    assertThat(first(template, "^\\s+SemanticVersion: (\\S+)$")).isEqualTo(version);
    assertThat(first(template, "^\\s+SourceCodeUrl: (\\S+)$")).isEqualTo(URL + "/tree/v" + version);
    assertThat(first(template, "^\\s+HomePageUrl: (\\S+)$")).isEqualTo(URL);
    assertThat(first(template, "^\\s+SpdxLicenseId: (\\S+)$")).isEqualTo("Apache-2.0");
  }

  @Test
  void projectUrl_isOneAddressEverywhere() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));

    assertThat(first(pom, "^  <url>([^<]+)</url>")).isEqualTo(URL);
    assertThat(first(pom, "<scm[^>]*>[\\s\\S]*?<url>([^<]+)</url>")).isEqualTo(URL);
    assertThat(Files.readString(ROOT.resolve("docs/installing.md"))).contains(URL);
  }

  @Test
  void aSnapshot_collectsItsChangesUnderUnreleased() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    String changelog = Files.readString(ROOT.resolve("CHANGELOG.md"));
    String version =
        first(pom, "<artifactId>lambda-outbox-parent</artifactId>\\s*<version>([^<]+)</version>");

    if (version.endsWith("-SNAPSHOT")) {
      assertThat(changelog).contains("## [Unreleased]");
    } else {
      assertThat(changelog)
          .containsPattern("## \\[" + Pattern.quote(version) + "\\] - \\d{4}-\\d{2}-\\d{2}");
    }
  }
}
