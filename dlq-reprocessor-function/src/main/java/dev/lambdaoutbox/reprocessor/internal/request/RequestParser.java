package dev.lambdaoutbox.reprocessor.internal.request;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Turns the request body into a {@link ReprocessorRequest}, or refuses it with an {@link
 * InvalidRequestException} naming the field. Strict on purpose: unknown fields, repeated keys,
 * wrong types and nulls are refused, so that nothing an operator did not mean can widen a replay.
 * This reads the JSON and the action, refuses fields of other actions ({@link ActionFields}), and
 * hands the rest to the action's reader ({@link DeadLetterRequests}, {@link WaitingRequests},
 * {@link RewindRequests}).
 */
public final class RequestParser {
  /** The most ids one request may name, and the largest limit. */
  public static final int MAX_IDS = DeadLetterStore.MAX_ROWS_PER_REQUEST;

  public static final int DEFAULT_LIST_LIMIT = 50;
  public static final int DEFAULT_REPLAY_LIMIT = 100;

  public static final int DEFAULT_AUDIT_LIMIT = 50;

  /** Rows waiting for a destination one retarget or dead-lettering moves unless it says. */
  public static final int DEFAULT_WAITING_LIMIT = 100;

  /** The longest name, error code, reason and cursor a request may give. */
  static final int MAX_NAME = 255;

  static final int MAX_ERROR_CODE = 128;
  static final int MAX_REASON = 2_000;
  static final int MAX_CURSOR = 200;

  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private RequestParser() {}

  public static ReprocessorRequest parse(byte[] body) {
    RequestFields root = new RequestFields(readObject(body), "");
    String action = root.text("action", 32);
    if (action == null) {
      throw new InvalidRequestException("action", "is required; use " + ActionFields.ACTION_NAMES);
    }
    if (!ActionFields.BY_ACTION.containsKey(action)) {
      String hint = Typos.closest(action, ActionFields.BY_ACTION.keySet());
      throw new InvalidRequestException(
          "action",
          "'"
              + action
              + "' is not an action"
              + (hint == null ? "" : "; did you mean '" + hint + "'?")
              + " Use "
              + ActionFields.ACTION_NAMES);
    }
    ActionFields.rejectFieldsOfOtherActions(root, action);
    String requestedBy = root.text("requestedBy", MAX_NAME);
    return switch (action) {
      case "list" -> DeadLetterRequests.list(root, requestedBy);
      case "replay" -> DeadLetterRequests.replay(root, requestedBy);
      case "audit" -> DeadLetterRequests.audit(root, requestedBy);
      case "retarget" -> WaitingRequests.retarget(root, requestedBy);
      case "deadLetter" -> WaitingRequests.deadLetterWaiting(root, requestedBy);
      case "rewind" -> RewindRequests.rewind(root, requestedBy);
      case "redrive" -> RedriveRequests.redrive(root, requestedBy);
      case "stopRedrive" -> RedriveRequests.stop(root, requestedBy);
      case "resumeRedrive" -> RedriveRequests.resume(root, requestedBy);
      default -> DeadLetterRequests.discard(root, requestedBy);
    };
  }

  private static ObjectNode readObject(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    if (text.isBlank()) {
      throw new InvalidRequestException(
          "body", "is empty; send a JSON object such as {\"action\": \"list\"}");
    }
    JsonNode root;
    try {
      root = STRICT.readTree(text);
    } catch (JsonProcessingException e) {
      throw unreadable(e);
    } catch (IOException e) {
      throw new InvalidRequestException("body", "could not be read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new InvalidRequestException(
          "body",
          "must be a JSON object such as {\"action\": \"list\"}, not "
              + (root == null ? "nothing" : RequestFields.describe(root)));
    }
    return (ObjectNode) root;
  }

  private static InvalidRequestException unreadable(JsonProcessingException e) {
    String message = e.getOriginalMessage();
    String where =
        e.getLocation() == null
            ? ""
            : " at line "
                + e.getLocation().getLineNr()
                + ", column "
                + e.getLocation().getColumnNr();
    if (message != null
        && message.startsWith("Duplicate field '")
        && e.getProcessor() instanceof JsonParser parser) {
      String name = message.substring("Duplicate field '".length(), message.lastIndexOf('\''));
      String path = pathOf(parser, name);
      return new InvalidRequestException(
          path, "appears more than once" + where + "; give each field once");
    }
    return new InvalidRequestException("body", "is not valid JSON" + where + ": " + message);
  }

  /** The dotted path of a field named {@code name} in the object the parser is in. */
  private static String pathOf(JsonParser parser, String name) {
    String pointer =
        parser.getParsingContext().getParent() == null
            ? ""
            : parser.getParsingContext().getParent().pathAsPointer().toString();
    String parent = pointer.isEmpty() ? "" : pointer.substring(1).replace('/', '.') + ".";
    return parent + name;
  }
}
