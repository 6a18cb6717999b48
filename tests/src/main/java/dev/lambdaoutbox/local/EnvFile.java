package dev.lambdaoutbox.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A file of environment variables, one {@code NAME=value} a line, as {@code docker --env-file}
 * reads it: blank lines and lines starting with {@code #} are skipped, the value is everything
 * after the first {@code =}, taken as written (no quotes removed, nothing expanded).
 */
final class EnvFile {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private EnvFile() {}

  static Map<String, String> read(Path file) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank() || line.stripLeading().startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      String name = eq < 0 ? line.strip() : line.substring(0, eq).strip();
      if (eq < 0 || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": expected NAME=value, found '" + line + "'");
      }
      env.put(name, line.substring(eq + 1));
    }
    return env;
  }
}
