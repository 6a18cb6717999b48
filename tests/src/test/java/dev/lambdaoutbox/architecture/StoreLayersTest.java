package dev.lambdaoutbox.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers of {@code outbox-store}, over its main code as built, bottom to top:
 *
 * <ol>
 *   <li>{@code model}: the values every layer shares (claims, outcomes, dead letters, audit,
 *       waiting rows, rewinds), no SQL;
 *   <li>{@code sql}, the executor interface, and {@code config}, the settings;
 *   <li>{@code jdbc} and {@code dataapi}, the executors;
 *   <li>{@code internal.rows} and {@code internal.dialect}: the statements of each database, and
 *       {@code internal}, which renders them for a dialect and set of tables;
 *   <li>{@code clock}, the database's clock;
 *   <li>the stores: {@code deadletter}, {@code waiting}, {@code rewind};
 *   <li>the root: the outbox store, and the executors made from settings.
 * </ol>
 *
 * A package uses only those below it, and no packages use each other in a circle, so that each can
 * be read, and changed, knowing only what is under it. ({@link CodeShapeTest} keeps each package
 * and file small enough to read.)
 */
class StoreLayersTest {
  private static final String STORE = "dev.lambdaoutbox.store";

  private static JavaClasses store;

  @BeforeAll
  static void importTheStore() {
    Path classes = PackagedFunction.projectRoot().resolve("outbox-store/target/classes");
    assertThat(classes).as("outbox-store is compiled (./mvnw compile)").isDirectory();
    store = new ClassFileImporter().importPath(classes);
    assertThat(Files.isDirectory(classes.resolve("dev/lambdaoutbox/store"))).isTrue();
  }

  @Test
  void noPackages_useEachOtherInACircle() {
    slices().matching(STORE + ".(**)").should().beFreeOfCycles().check(store);
  }

  @Test
  void eachPackage_usesOnlyTheLayersBelowIt() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Model")
        .definedBy(STORE + ".model..")
        .layer("Sql")
        .definedBy(STORE + ".sql..")
        .layer("Config")
        .definedBy(STORE + ".config..")
        .layer("Executors")
        .definedBy(STORE + ".jdbc..", STORE + ".dataapi..")
        .layer("Rows")
        .definedBy(STORE + ".internal.rows..")
        .layer("Dialects")
        .definedBy(STORE + ".internal.dialect..")
        .layer("Statements")
        .definedBy(STORE + ".internal")
        .layer("Clock")
        .definedBy(STORE + ".clock..")
        .layer("Stores")
        .definedBy(STORE + ".deadletter..", STORE + ".waiting..", STORE + ".rewind..")
        .layer("Root")
        .definedBy(STORE)
        .whereLayer("Root")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Stores")
        .mayOnlyBeAccessedByLayers("Root")
        .whereLayer("Clock")
        .mayOnlyBeAccessedByLayers("Stores", "Root")
        .whereLayer("Statements")
        .mayOnlyBeAccessedByLayers("Clock", "Stores", "Root")
        .whereLayer("Dialects")
        .mayOnlyBeAccessedByLayers("Statements", "Clock", "Stores", "Root")
        .whereLayer("Rows")
        .mayOnlyBeAccessedByLayers("Dialects", "Statements", "Clock", "Stores", "Root")
        .whereLayer("Executors")
        .mayOnlyBeAccessedByLayers("Root")
        .whereLayer("Config")
        .mayOnlyBeAccessedByLayers("Executors", "Root")
        .whereLayer("Sql")
        .mayOnlyBeAccessedByLayers(
            "Executors", "Rows", "Dialects", "Statements", "Clock", "Stores", "Root")
        .check(store);
  }
}
