package dev.lambdaoutbox.packaging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * What a function's shaded jar bundles, and which of those libraries its handler can reach.
 *
 * <p>The libraries are the ones the jar's {@code THIRD-PARTY.txt} lists ({@code group:artifact:
 * version}), each known by the classes of its own jar. A class is reached when a path of {@link
 * ClassReferences} leads to it from the handler class; and the providers of a service ({@code
 * META-INF/services/<interface>}) are reached once their interface is, or at once when the
 * interface is the platform's (a JDBC {@code java.sql.Driver}), as {@code ServiceLoader} finds
 * them: the SDK's HTTP client, the SLF4J binding and the drivers are used that way. A library none
 * of whose classes is reached is carried for nothing.
 */
final class BundledLibraries {
  private static final String VERSIONED = "META-INF/versions/";
  private static final String SERVICES = "META-INF/services/";
  private static final Pattern COORDINATES =
      Pattern.compile("\\(([^\\s:()]+):([^\\s:()]+):([^\\s:()]+) - ");

  /** One library the jar bundles: its coordinates and its classes found in the jar. */
  record Library(String coordinates, Set<String> classes, long bytes) {}

  private final Path jar;
  private final Map<String, Set<String>> references = new HashMap<>();
  private final Map<String, Long> sizes = new HashMap<>();
  private final Map<String, List<String>> services = new LinkedHashMap<>();
  private final List<String> listed = new ArrayList<>();

  private BundledLibraries(Path jar) {
    this.jar = jar;
  }

  /** Reads every class, service file and the library list of {@code jar}. */
  static BundledLibraries read(Path jar) throws IOException {
    BundledLibraries libraries = new BundledLibraries(jar);
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (ZipEntry entry : zip.stream().toList()) {
        String name = entry.getName();
        if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
          String className = className(name);
          byte[] bytes = read(zip, entry);
          libraries
              .references
              .computeIfAbsent(className, c -> new HashSet<>())
              .addAll(ClassReferences.of(bytes));
          libraries.sizes.merge(className, (long) bytes.length, Long::sum);
        } else if (name.startsWith(SERVICES) && !entry.isDirectory()) {
          libraries.services.put(
              name.substring(SERVICES.length()).replace('.', '/'),
              providers(new String(read(zip, entry), StandardCharsets.UTF_8)));
        } else if (name.equals("THIRD-PARTY.txt")) {
          Matcher m = COORDINATES.matcher(new String(read(zip, entry), StandardCharsets.UTF_8));
          while (m.find()) {
            libraries.listed.add(m.group(1) + ":" + m.group(2) + ":" + m.group(3));
          }
        }
      }
    }
    if (libraries.listed.isEmpty()) {
      throw new IllegalStateException(jar + " has no THIRD-PARTY.txt listing its libraries");
    }
    return libraries;
  }

  /** The libraries the jar lists, each with its classes as {@code classesOf} gives them. */
  List<Library> libraries(Function<String, Set<String>> classesOf) {
    List<Library> libraries = new ArrayList<>();
    for (String coordinates : listed) {
      Set<String> classes = new HashSet<>(classesOf.apply(coordinates));
      classes.retainAll(references.keySet());
      long bytes = classes.stream().mapToLong(sizes::get).sum();
      libraries.add(new Library(coordinates, classes, bytes));
    }
    return libraries;
  }

  /** The classes of the jar reached from {@code handlerClass} (a binary name). */
  Set<String> reachedFrom(String handlerClass) {
    String root = handlerClass.replace('.', '/');
    if (!references.containsKey(root)) {
      throw new IllegalStateException(jar + " has no class " + handlerClass);
    }
    Set<String> reached = new HashSet<>();
    Deque<String> next = new ArrayDeque<>(List.of(root));
    boolean more = true;
    while (more) {
      while (!next.isEmpty()) {
        String c = next.pop();
        Set<String> refs = references.get(c);
        if (refs != null && reached.add(c)) {
          next.addAll(refs);
        }
      }
      more = false;
      for (Map.Entry<String, List<String>> service : services.entrySet()) {
        boolean loadable =
            reached.contains(service.getKey()) || !references.containsKey(service.getKey());
        if (loadable) {
          for (String provider : service.getValue()) {
            if (references.containsKey(provider) && !reached.contains(provider)) {
              next.add(provider);
              more = true;
            }
          }
        }
      }
    }
    return reached;
  }

  /**
   * The classes of a library's own jar (or of a module's {@code target/classes}), in internal form.
   */
  static Set<String> classesIn(Path jarOrFolder) {
    Set<String> classes = new HashSet<>();
    try {
      if (Files.isDirectory(jarOrFolder)) {
        try (Stream<Path> files = Files.walk(jarOrFolder)) {
          files
              .map(p -> jarOrFolder.relativize(p).toString().replace('\\', '/'))
              .filter(n -> n.endsWith(".class"))
              .forEach(n -> classes.add(className(n)));
        }
      } else {
        try (ZipFile zip = new ZipFile(jarOrFolder.toFile())) {
          zip.stream()
              .map(ZipEntry::getName)
              .filter(n -> n.endsWith(".class"))
              .forEach(n -> classes.add(className(n)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not list the classes of " + jarOrFolder, e);
    }
    classes.remove("module-info");
    return classes;
  }

  /** {@code a/b/C.class} or {@code META-INF/versions/11/a/b/C.class} as {@code a/b/C}. */
  private static String className(String entry) {
    String name = entry;
    if (name.startsWith(VERSIONED)) {
      int slash = name.indexOf('/', VERSIONED.length());
      name = name.substring(slash + 1);
    }
    return name.substring(0, name.length() - ".class".length());
  }

  private static List<String> providers(String file) {
    List<String> providers = new ArrayList<>();
    for (String line : file.split("\n")) {
      int comment = line.indexOf('#');
      String provider = (comment >= 0 ? line.substring(0, comment) : line).strip();
      if (!provider.isEmpty()) {
        providers.add(provider.replace('.', '/'));
      }
    }
    return providers;
  }

  private static byte[] read(ZipFile zip, ZipEntry entry) throws IOException {
    try (InputStream in = zip.getInputStream(entry)) {
      return in.readAllBytes();
    }
  }
}
