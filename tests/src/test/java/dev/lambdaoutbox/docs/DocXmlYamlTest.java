package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pages' {@code xml} and Gradle ({@code kotlin}) blocks are dependencies on this project's
 * modules, with the coordinates the modules really have; their {@code yaml} blocks are SAM
 * resources for a consumer's stack, which {@code sam validate --lint} (the SAM CLI the test bed
 * installs, with cfn-lint) accepts as a template of their own.
 */
class DocXmlYamlTest {
  private static final Pattern DEPENDENCY =
      Pattern.compile("<dependency>.*?</dependency>", Pattern.DOTALL);
  private static final Pattern GRADLE =
      Pattern.compile("\"dev\\.lambdaoutbox:([a-z-]+)(?::([^\"]+))?\"");
  private static final Pattern COORDINATE =
      Pattern.compile("<(groupId|artifactId|version)>([^<]+)</\\1>");

  @TempDir Path dir;

  @Test
  void everyXmlBlock_isADependencyOnAModuleWithItsCoordinates() throws Exception {
    List<CodeBlock> blocks =
        DocPages.blocks("xml").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    assertThat(blocks).as("the pages' xml blocks").isNotEmpty();
    for (CodeBlock block : blocks) {
      Matcher dependency = DEPENDENCY.matcher(block.text());
      int found = 0;
      while (dependency.find()) {
        found++;
        Map<String, String> given = coordinates(dependency.group());
        assertThat(given.get("groupId")).as("%s groupId", block).isEqualTo("dev.lambdaoutbox");
        checkModuleAndVersion(block, given.get("artifactId"), given.get("version"));
      }
      assertThat(found).as("%s declares dependencies", block).isPositive();
    }
  }

  @Test
  void everyGradleBlock_namesModulesWithTheirVersion() throws Exception {
    List<CodeBlock> blocks =
        DocPages.blocks("kotlin").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    for (CodeBlock block : blocks) {
      Matcher coordinate = GRADLE.matcher(block.text());
      int found = 0;
      while (coordinate.find()) {
        found++;
        checkModuleAndVersion(block, coordinate.group(1), coordinate.group(2));
      }
      assertThat(found).as("%s names dependencies", block).isPositive();
    }
  }

  /**
   * A module of this project; its version this build's, the release it will be (the version without
   * {@code -SNAPSHOT}), or none where the BOM gives it.
   */
  private static void checkModuleAndVersion(CodeBlock block, String artifact, String version)
      throws Exception {
    assertThat(modules()).as("%s names a module", block).containsKey(artifact);
    if (version == null) {
      assertThat(block.text()).as("%s: a version, or the BOM", block).contains("outbox-bom");
      return;
    }
    String built = System.getProperty("outbox.version");
    assertThat(version)
        .as("%s version of %s", block, artifact)
        .isIn(built, built.replace("-SNAPSHOT", ""));
  }

  @Test
  void everyYamlBlock_passesSamValidateLint() throws Exception {
    List<CodeBlock> blocks =
        DocPages.blocks("yaml").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    assertThat(blocks).as("the pages' yaml blocks").isNotEmpty();
    for (CodeBlock block : blocks) {
      Path template = dir.resolve("template-" + block.line() + ".yaml");
      Files.writeString(
          template,
          "AWSTemplateFormatVersion: \"2010-09-09\"\n"
              + "Transform: AWS::Serverless-2016-10-31\n"
              + "Resources:\n"
              + block.text());
      Path log = dir.resolve("sam-" + block.line() + ".log");
      Process sam =
          new ProcessBuilder(
                  DocPages.ROOT.resolve("scripts/sam").toString(),
                  "validate",
                  "--lint",
                  "-t",
                  template.toString())
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      assertThat(sam.waitFor(5, TimeUnit.MINUTES)).as("sam validate finished").isTrue();
      assertThat(sam.exitValue())
          .as("%s: sam validate --lint:%n%s", block, Files.readString(log))
          .isZero();
    }
  }

  /** Module artifactId to its directory, for every module of the root POM. */
  private static Map<String, String> modules() throws Exception {
    Map<String, String> modules = new HashMap<>();
    Matcher module =
        Pattern.compile("<module>([^<]+)</module>")
            .matcher(Files.readString(DocPages.ROOT.resolve("pom.xml")));
    while (module.find()) {
      String pom = Files.readString(DocPages.ROOT.resolve(module.group(1)).resolve("pom.xml"));
      // The module's own artifactId: the first one after its <parent> block.
      String own = pom.contains("</parent>") ? pom.substring(pom.indexOf("</parent>")) : pom;
      modules.put(coordinates(own).get("artifactId"), module.group(1));
    }
    return modules;
  }

  private static Map<String, String> coordinates(String xml) {
    Map<String, String> found = new HashMap<>();
    Matcher m = COORDINATE.matcher(xml);
    List<String> seen = new ArrayList<>();
    while (m.find()) {
      if (!seen.contains(m.group(1))) {
        seen.add(m.group(1));
        found.put(m.group(1), m.group(2).strip());
      }
    }
    return found;
  }
}
