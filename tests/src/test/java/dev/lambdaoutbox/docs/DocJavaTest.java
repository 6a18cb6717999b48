package dev.lambdaoutbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages.CodeBlock;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code java} block of the pages compiles against the project's libraries (the writer and
 * its core, the SQS consumer, Jdbi, the Lambda event types), on Java 21. A block is compiled as
 * what it is: a whole file (it starts with {@code package} or {@code import}), a type (it starts
 * with a class or record), a method, or statements. The imports and the few names a snippet uses
 * without declaring them ({@link #CONTEXT}: the application around it) are stated here once; an API
 * that is renamed or takes other arguments fails.
 */
class DocJavaTest {
  static final String IMPORTS =
      """
      import com.amazonaws.services.lambda.runtime.Context;
      import com.amazonaws.services.lambda.runtime.RequestHandler;
      import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
      import com.amazonaws.services.lambda.runtime.events.SQSEvent;
      import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
      import dev.lambdaoutbox.consumer.*;
      import dev.lambdaoutbox.core.*;
      import dev.lambdaoutbox.writer.*;
      import java.sql.Connection;
      import java.time.Duration;
      import java.util.List;
      import java.util.UUID;
      import org.jdbi.v3.core.Handle;
      import org.jdbi.v3.core.Jdbi;
      import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
      import software.amazon.awssdk.services.s3.S3Client;
      """;

  /** What an application around a snippet has: the names snippets use without declaring them. */
  static final String CONTEXT =
      """
        Jdbi jdbi;
        Handle handle;
        Connection connection;
        OutboxWriter outbox;
        Inbox inbox;
        OutboxEvent event;
        String id, shopId, traceparent, requestId, eventId, payload;
        ShopReservations shopReservations;

        record ReservationCreated(String id, String shopId) {}
        record Request(String id) {}
        record Receipt(UUID eventId) {}
        interface ShopReservations { void insert(Handle handle, String payload); }
        Receipt receiptFor(UUID eventId) { return new Receipt(eventId); }
      """;

  private static final Pattern TYPE =
      Pattern.compile(
          "^(?:public\\s+|final\\s+|abstract\\s+)*(?:class|record|interface|enum)\\s+(\\w+)");
  private static final Pattern METHOD =
      Pattern.compile("^[\\w<>\\[\\], ]+\\s+\\w+\\([^)]*\\)\\s*(throws [\\w., ]+)?\\s*\\{\\s*$");

  @TempDir Path out;

  @Test
  void everyJavaBlock_compiles() throws IOException {
    List<CodeBlock> blocks =
        DocPages.blocks("java").stream().filter(b -> b.checkedBy().isEmpty()).toList();
    assertThat(blocks).as("the pages' java blocks").hasSizeGreaterThan(5);
    List<String> failures = new ArrayList<>();
    for (CodeBlock block : blocks) {
      String errors = compile(block.text(), "Snippet" + Math.abs(block.where().hashCode()));
      if (errors != null) {
        failures.add(block + ":\n" + errors);
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void aSnippetCallingAnApiThatDoesNotExist_fails() throws IOException {
    assertThat(compile("OutboxWriter outbox = OutboxWriter.creat();\n", "Wrong"))
        .as("the test can fail")
        .contains("creat");
  }

  /** Null when the snippet compiles, else the compiler's errors. */
  private String compile(String snippet, String name) throws IOException {
    String firstLine =
        snippet
            .lines()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("//") && !l.startsWith("/*"))
            .findFirst()
            .orElse("");
    String className;
    String source;
    Matcher type = TYPE.matcher(firstLine);
    if (firstLine.startsWith("package ") || firstLine.startsWith("import ")) {
      Matcher declared =
          Pattern.compile("(?m)^public\\s+(?:final\\s+)?(?:class|record|interface)\\s+(\\w+)")
              .matcher(snippet);
      className = declared.find() ? declared.group(1) : name;
      source = snippet;
    } else if (type.find()) {
      className = type.group(1);
      source = IMPORTS + snippet;
    } else if (METHOD.matcher(firstLine).matches()) {
      className = name;
      source = IMPORTS + "class " + name + " {\n" + CONTEXT + snippet + "}\n";
    } else {
      className = name;
      source =
          IMPORTS
              + "class "
              + name
              + " {\n"
              + CONTEXT
              + "  void snippet() throws Exception {\n"
              + snippet
              + "  }\n}\n";
    }
    return compileSource(className, source);
  }

  private String compileSource(String className, String source) throws IOException {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path classes = Files.createTempDirectory(out, "classes");
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    JavaFileObject file =
        new SimpleJavaFileObject(
            URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
          }
        };
    boolean ok =
        compiler
            .getTask(
                null,
                null,
                diagnostics,
                List.of(
                    "--release",
                    "21",
                    "-proc:none",
                    "-classpath",
                    classPath,
                    "-d",
                    classes.toString()),
                null,
                List.of(file))
            .call();
    if (ok) {
      return null;
    }
    StringBuilder errors = new StringBuilder();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors
            .append("  line ")
            .append(d.getLineNumber())
            .append(": ")
            .append(d.getMessage(Locale.ROOT))
            .append('\n');
      }
    }
    return errors + "in:\n" + source;
  }
}
