package dev.lambdaoutbox.architecture;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The modules of the root pom.xml, in the order the reactor builds them. */
final class ReactorModules {
  private ReactorModules() {}

  static List<String> inBuildOrder() {
    try {
      Matcher module =
          Pattern.compile("<module>([^<]+)</module>")
              .matcher(Files.readString(PackagedFunction.projectRoot().resolve("pom.xml")));
      List<String> names = new ArrayList<>();
      while (module.find()) {
        names.add(module.group(1));
      }
      return names;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The product: every module built before {@code tests}, which ships none of its code. */
  static List<String> product() {
    return inBuildOrder().stream().takeWhile(name -> !name.equals("tests")).toList();
  }
}
