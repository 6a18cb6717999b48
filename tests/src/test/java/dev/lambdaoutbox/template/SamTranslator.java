package dev.lambdaoutbox.template;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * AWS's SAM translator ({@code samtranslator}, the library behind CloudFormation's {@code
 * AWS::Serverless} transform), run on template.yaml for sets of parameter values as CloudFormation
 * runs it for a deploy with each set; and the inline handler of a custom resource, run with the
 * events CloudFormation sends it, its answers taken over HTTP as CloudFormation takes them. Both
 * run in the Python of the SAM CLI that {@code scripts/sam} installs (installing it when missing),
 * through {@code sam_translate.py}.
 */
final class SamTranslator {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SAM = PackagedFunction.projectRoot().resolve("scripts/sam");

  /**
   * The translated templates, in the order of the parameter sets, and for each resource type of
   * theirs the properties whose change makes CloudFormation replace a resource of that type (its
   * registry schema's {@code createOnlyProperties}, as cfn-lint carries it).
   */
  record Translation(
      String translatorVersion,
      List<SamTemplate> templates,
      Map<String, List<String>> createOnly) {}

  /** One answer a handler sent to its event's {@code ResponseURL}. */
  record Answer(String method, List<String> contentTypes, Map<String, Object> body) {}

  private SamTranslator() {}

  /**
   * Transforms {@code template} for each parameter set; the functions' local {@code CodeUri}s
   * become S3 objects named after {@code artifact}, as {@code sam package} names them after the
   * zip's contents.
   */
  static Translation translate(
      Path template, String artifact, List<Map<String, String>> parameterSets) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("template", template.toAbsolutePath().toString());
    request.put("region", SamTemplate.REGION);
    request.put("artifact", artifact);
    request.put("parameterSets", parameterSets);
    Map<String, Object> answer = run("translate", request);
    List<SamTemplate> templates = new ArrayList<>();
    for (Object translated : (List<?>) answer.get("templates")) {
      templates.add(SamTemplate.of(SamTemplate.map(translated)));
    }
    return new Translation(
        String.valueOf(answer.get("translatorVersion")),
        templates,
        JSON.convertValue(answer.get("createOnly"), new TypeReference<>() {}));
  }

  /**
   * Transforms each of {@code templates} for each parameter set, in one run of the translator: for
   * each template, its translations in the order of the sets.
   */
  static List<List<SamTemplate>> translateEach(
      List<Path> templates, String artifact, List<Map<String, String>> parameterSets) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("templates", templates.stream().map(t -> t.toAbsolutePath().toString()).toList());
    request.put("region", SamTemplate.REGION);
    request.put("artifact", artifact);
    request.put("parameterSets", parameterSets);
    Map<String, Object> answer = run("translate-each", request);
    List<List<SamTemplate>> translations = new ArrayList<>();
    for (Object each : (List<?>) answer.get("translations")) {
      List<SamTemplate> templatesOfOne = new ArrayList<>();
      for (Object translated : (List<?>) each) {
        templatesOfOne.add(SamTemplate.of(SamTemplate.map(translated)));
      }
      translations.add(templatesOfOne);
    }
    return translations;
  }

  /**
   * Runs {@code handler} (as {@code module.function}) of the inline {@code code} once per event,
   * each event's {@code ResponseURL} pointing at a loopback server; returns what each sent there,
   * in the order of the events (null where it sent nothing).
   */
  static List<Answer> handle(String code, String handler, List<Map<String, Object>> events) {
    Map<Integer, Answer> answers = new ConcurrentHashMap<>();
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on loopback for the handler's answers", e);
    }
    server.createContext(
        "/answer/",
        exchange -> {
          int index = Integer.parseInt(exchange.getRequestURI().getPath().substring(8));
          byte[] body = exchange.getRequestBody().readAllBytes();
          List<String> contentTypes = exchange.getRequestHeaders().get("Content-Type");
          answers.put(
              index,
              new Answer(
                  exchange.getRequestMethod(),
                  contentTypes == null ? List.of() : List.copyOf(contentTypes),
                  JSON.readValue(body, new TypeReference<>() {})));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/answer/";
      List<Map<String, Object>> sent = new ArrayList<>();
      for (int i = 0; i < events.size(); i++) {
        Map<String, Object> event = new LinkedHashMap<>(events.get(i));
        event.put("ResponseURL", base + i);
        sent.add(event);
      }
      run("handle", Map.of("code", code, "handler", handler, "events", sent));
      List<Answer> inOrder = new ArrayList<>();
      for (int i = 0; i < events.size(); i++) {
        inOrder.add(answers.get(i));
      }
      return inOrder;
    } finally {
      server.stop(0);
    }
  }

  private static Map<String, Object> run(String verb, Map<String, Object> request) {
    try {
      Path dir = Files.createTempDirectory("sam-translate");
      try {
        Path in = dir.resolve("request.json");
        Path out = dir.resolve("answer.json");
        Path log = dir.resolve("output.txt");
        JSON.writeValue(in.toFile(), request);
        Process process =
            new ProcessBuilder(
                    SAM.toString(),
                    "--python",
                    driver().toString(),
                    verb,
                    in.toString(),
                    out.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        // The first use installs the SAM CLI (scripts/sam), which takes minutes.
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
          process.destroyForcibly();
          throw new IllegalStateException(
              "sam_translate.py " + verb + " did not finish: " + Files.readString(log));
        }
        if (process.exitValue() != 0) {
          throw new IllegalStateException(
              "sam_translate.py "
                  + verb
                  + " failed (exit "
                  + process.exitValue()
                  + "):\n"
                  + Files.readString(log, StandardCharsets.UTF_8));
        }
        return JSON.readValue(out.toFile(), new TypeReference<>() {});
      } finally {
        try (var files = Files.walk(dir)) {
          files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run sam_translate.py " + verb, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running sam_translate.py " + verb, e);
    }
  }

  private static Path driver() {
    try {
      return Path.of(SamTranslator.class.getResource("/template/sam_translate.py").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
