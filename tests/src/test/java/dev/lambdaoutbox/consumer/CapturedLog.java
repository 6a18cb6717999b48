package dev.lambdaoutbox.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The JSON log lines a consumer wrote, captured instead of printed. */
final class CapturedLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  /** The lines logged at {@code level}, parsed. */
  List<JsonNode> lines(String level) {
    List<JsonNode> lines = new ArrayList<>();
    String text;
    synchronized (bytes) {
      text = bytes.toString(StandardCharsets.UTF_8);
    }
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(line);
        if (level.equals(node.path("level").asText())) {
          lines.add(node);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("not a JSON line: " + line, e);
      }
    }
    return lines;
  }
}
