package dev.lambdaoutbox.template;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.testing.AwsCallRecorder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The AWS calls the test suite's JVMs recorded ({@link AwsCallRecorder}), read back for the IAM
 * check. As a launcher session listener (registered in the tests' {@code META-INF/services}) it
 * forgets the last run's records when a run of the tests starts, so that the check, which runs
 * after them in a surefire execution of its own ({@code outbox.iam.check}), reads this run's only;
 * run alone ({@code -Dtest=RecordedCallsIamTest}) it checks the last run's again.
 */
public final class AwsCallRecords implements LauncherSessionListener {
  /** Set in the surefire execution of the check, which reads the records and writes none. */
  static final String CHECK_PROPERTY = "outbox.iam.check";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One recorded call.
   *
   * @param principal {@code poller}, {@code reprocessor}, {@code store} (code both functions run),
   *     {@code application} (the writer library), {@code consumer}, or {@code test} (a call only
   *     the tests make, recorded for the key it tells of)
   * @param caller the innermost project class that made it
   * @param request the request's fields that name a resource or key, by name
   * @param response the answer's, likewise
   * @param error the error it ended with ({@code 404 NotFound}), or null
   */
  record Call(
      String principal,
      String caller,
      String service,
      String operation,
      String region,
      Map<String, List<String>> request,
      Map<String, List<String>> response,
      String error) {
    Call {
      request = request == null ? Map.of() : Map.copyOf(request);
      response = response == null ? Map.of() : Map.copyOf(response);
    }

    /** The values the request gave {@code field}, in order; empty when it gave none. */
    List<String> request(String field) {
      return request.getOrDefault(field, List.of());
    }

    /** The one value of a request's field, or null. */
    String requested(String field) {
      List<String> values = request(field);
      return values.isEmpty() ? null : values.getFirst();
    }

    /** The one value of an answer's field, or null. */
    String answered(String field) {
      List<String> values = response.getOrDefault(field, List.of());
      return values.isEmpty() ? null : values.getFirst();
    }

    String name() {
      return service + "." + operation;
    }

    @Override
    public String toString() {
      return principal + " " + name() + " " + request + (caller == null ? "" : " from " + caller);
    }
  }

  /** The folder the records are in, as the build sets it; null outside it. */
  static Path directory() {
    String dir = System.getProperty(AwsCallRecorder.DIRECTORY_PROPERTY);
    return dir == null ? null : Path.of(dir);
  }

  /**
   * The {@code -Dtest} of the build ({@code outbox.iam.testFilter}), or null when it runs every
   * test.
   */
  static String testFilter() {
    String filter = System.getProperty("outbox.iam.testFilter", "");
    return filter.isBlank() || filter.startsWith("${") ? null : filter.strip();
  }

  /**
   * Forgets the last run's records, unless this JVM is the check's, or the build runs the check
   * alone ({@code -Dtest=RecordedCallsIamTest}): that checks the last run's calls again, e.g. after
   * a change of template.yaml.
   */
  @Override
  public void launcherSessionOpened(LauncherSession session) {
    Path dir = directory();
    if (dir == null
        || Boolean.getBoolean(CHECK_PROPERTY)
        || "RecordedCallsIamTest".equals(testFilter())
        || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot forget the last run's recorded AWS calls in " + dir, e);
    }
  }

  /** Every distinct call the records hold, in no particular order. */
  static List<Call> read(Path dir) {
    LinkedHashSet<Call> calls = new LinkedHashSet<>();
    if (dir == null || !Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.sorted().toList()) {
        for (String line : Files.readAllLines(file)) {
          if (!line.isBlank()) {
            calls.add(JSON.readValue(line, new TypeReference<Call>() {}));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the recorded AWS calls in " + dir, e);
    }
    return new ArrayList<>(calls);
  }
}
