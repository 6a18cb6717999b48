package dev.lambdaoutbox.release;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The release profile's last step (release-bundle's exec:java at verify): checks that what is
 * published agrees with outbox-bom, assembles {@code target/central-bundle.zip} from what the
 * published modules staged in this build, validates it against {@link CentralRules}, and prints
 * what a release would upload. Fails the build, naming each problem, when anything is off.
 *
 * <p>Arguments: {@code --root=DIR --inputs=DIR --output=DIR --build=STAMP --signed=true|false
 * --final=true|false}.
 */
public final class ReleaseBundle {
  private ReleaseBundle() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int equals = arg.indexOf('=');
      if (!arg.startsWith("--") || equals < 0) {
        throw new IllegalArgumentException("release-bundle: expected --name=value, got " + arg);
      }
      options.put(arg.substring(2, equals), arg.substring(equals + 1));
    }
    Path root = Path.of(required(options, "root")).normalize();
    PublishedSet set = PublishedSet.read(root);
    if (!set.problems().isEmpty()) {
      throw new IllegalStateException(
          "release-bundle: what is published and outbox-bom disagree:\n  "
              + String.join("\n  ", set.problems()));
    }
    boolean signed = Boolean.parseBoolean(required(options, "signed"));
    boolean finalRelease = Boolean.parseBoolean(required(options, "final"));
    Path zip =
        BundleAssembler.assemble(
            set,
            Path.of(required(options, "inputs")),
            Path.of(required(options, "output")),
            required(options, "build"));
    CentralRules.Result result = CentralRules.check(zip, signed, finalRelease);
    if (!result.violations().isEmpty()) {
      throw new IllegalStateException(
          "release-bundle: "
              + zip
              + " breaks Maven Central's rules:\n  "
              + String.join("\n  ", result.violations()));
    }
    print(
        "release-bundle: " + zip.normalize() + " is valid for Maven Central", result.components());
    System.out.println(
        "  signatures: " + (signed ? "checked (.asc beside every file)" : "off (-Dsign=true)"));
    result.notes().forEach(note -> System.out.println("  note: " + note));
  }

  private static void print(String title, List<String> lines) {
    System.out.println(title);
    lines.forEach(line -> System.out.println("  " + line));
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("release-bundle: --" + name + " is required");
    }
    return value;
  }
}
