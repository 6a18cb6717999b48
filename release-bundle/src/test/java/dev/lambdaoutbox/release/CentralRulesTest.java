package dev.lambdaoutbox.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CentralRulesTest {
  private static final String BUILD = "20260101T000000.000";

  @TempDir Path dir;

  private Path bundle(String version, String parentPom, String libPom) throws IOException {
    BundleFixture.stage(dir.resolve("inputs"), version, BUILD, parentPom, libPom);
    return BundleAssembler.assemble(
        BundleFixture.set(version), dir.resolve("inputs"), dir.resolve("out"), BUILD);
  }

  private Path staged(String version) {
    return dir.resolve("out/central-staging/dev/example/lib/" + version);
  }

  private CentralRules.Result rezip(boolean signed, boolean finalRelease) throws IOException {
    Path zip = dir.resolve("out/central-bundle.zip");
    BundleAssembler.zip(dir.resolve("out/central-staging"), zip);
    return CentralRules.check(zip, signed, finalRelease);
  }

  @Test
  void completeRelease_isValid_withElementsInheritedFromTheParentInTheBundle() throws IOException {
    Path zip = bundle("1.2.0", BundleFixture.PARENT_POM, BundleFixture.LIB_POM);

    CentralRules.Result result = CentralRules.check(zip, false, true);

    assertThat(result.violations()).isEmpty();
    assertThat(result.notes()).isEmpty();
    assertThat(result.components())
        .containsExactly("dev.example:lib:1.2.0 (20 files)", "dev.example:parent:1.2.0 (5 files)");
  }

  @Test
  void snapshot_isARehearsal_andRefusedForAFinalRelease() throws IOException {
    Path zip = bundle("1.2.0-SNAPSHOT", BundleFixture.PARENT_POM, BundleFixture.LIB_POM);

    assertThat(CentralRules.check(zip, false, false).violations()).isEmpty();
    assertThat(CentralRules.check(zip, false, false).notes())
        .singleElement()
        .asString()
        .contains("rehearsal");
    assertThat(CentralRules.check(zip, false, true).violations())
        .contains(
            "dev.example:lib:1.2.0-SNAPSHOT: a SNAPSHOT version; Central takes releases only");
  }

  @Test
  void jarWithoutJavadoc_isRefused() throws IOException {
    bundle("1.2.0", BundleFixture.PARENT_POM, BundleFixture.LIB_POM);
    Files.delete(staged("1.2.0").resolve("lib-1.2.0-javadoc.jar"));

    assertThat(rezip(false, true).violations())
        .contains("dev.example:lib:1.2.0: no lib-1.2.0-javadoc.jar");
  }

  @Test
  void licenseMissingFromPomAndParent_isRefused() throws IOException {
    String noLicense = BundleFixture.PARENT_POM.replaceAll("<licenses>.*</licenses>", "");
    Path zip = bundle("1.2.0", noLicense, BundleFixture.LIB_POM);

    assertThat(CentralRules.check(zip, false, true).violations())
        .contains(
            "dev.example:lib:1.2.0: the POM has no licenses/license (name and url), nor has a parent POM in the bundle",
            "dev.example:parent:1.2.0: the POM has no licenses/license (name and url), nor has a parent POM in the bundle");
  }

  @Test
  void checksumThatDoesNotMatch_isRefused() throws IOException {
    bundle("1.2.0", BundleFixture.PARENT_POM, BundleFixture.LIB_POM);
    Files.writeString(staged("1.2.0").resolve("lib-1.2.0.jar.sha1"), "0".repeat(40));
    Files.delete(staged("1.2.0").resolve("lib-1.2.0.pom.md5"));

    assertThat(rezip(false, true).violations())
        .contains(
            "dev.example:lib:1.2.0: lib-1.2.0.jar.sha1 does not match lib-1.2.0.jar",
            "dev.example:lib:1.2.0: no lib-1.2.0.pom.md5");
  }

  @Test
  void signingOn_requiresAnArmouredSignatureBesideEveryFile() throws IOException {
    bundle("1.2.0", BundleFixture.PARENT_POM, BundleFixture.LIB_POM);
    assertThat(rezip(true, true).violations())
        .contains("dev.example:lib:1.2.0: no lib-1.2.0.jar.asc (signing is on)");

    for (String name :
        new String[] {
          "lib-1.2.0.pom", "lib-1.2.0.jar", "lib-1.2.0-sources.jar", "lib-1.2.0-javadoc.jar"
        }) {
      Files.writeString(
          staged("1.2.0").resolve(name + ".asc"), "-----BEGIN PGP SIGNATURE-----\n...");
    }
    Files.writeString(
        dir.resolve("out/central-staging/dev/example/parent/1.2.0/parent-1.2.0.pom.asc"),
        "not a signature");

    assertThat(rezip(true, true).violations())
        .containsExactly(
            "dev.example:parent:1.2.0: parent-1.2.0.pom.asc is not an ASCII-armoured PGP signature");
  }

  @Test
  void filesStagedByAnEarlierBuild_areNotBundled() throws IOException {
    BundleFixture.stage(
        dir.resolve("inputs"),
        "1.2.0",
        "20250101T000000.000",
        BundleFixture.PARENT_POM,
        BundleFixture.LIB_POM);

    assertThatThrownBy(
            () ->
                BundleAssembler.assemble(
                    BundleFixture.set("1.2.0"), dir.resolve("inputs"), dir.resolve("out"), BUILD))
        .hasMessageContaining(
            "lib was staged by an earlier build (20250101T000000.000, this one started "
                + BUILD
                + ")");
  }

  @Test
  void sameInputs_giveTheSameZipBytes() throws IOException {
    Path zip = bundle("1.2.0", BundleFixture.PARENT_POM, BundleFixture.LIB_POM);
    byte[] first = Files.readAllBytes(zip);

    BundleAssembler.zip(dir.resolve("out/central-staging"), zip);

    assertThat(Files.readAllBytes(zip)).isEqualTo(first);
  }
}
