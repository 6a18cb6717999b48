package dev.lambdaoutbox.reprocessor.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.internal.ReprocessorRequest.AuditRequest;
import dev.lambdaoutbox.reprocessor.internal.ReprocessorRequest.DeadLetterWaitingRequest;
import dev.lambdaoutbox.reprocessor.internal.ReprocessorRequest.DiscardRequest;
import dev.lambdaoutbox.reprocessor.internal.ReprocessorRequest.ListRequest;
import dev.lambdaoutbox.reprocessor.internal.ReprocessorRequest.ReplayRequest;
import dev.lambdaoutbox.reprocessor.internal.ReprocessorRequest.RetargetRequest;
import dev.lambdaoutbox.store.deadletter.AuditCursor;
import dev.lambdaoutbox.store.deadletter.AuditFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Turns the request body into a {@link ReprocessorRequest}, or refuses it with an {@link
 * InvalidRequestException} naming the field. Strict on purpose: unknown fields, repeated keys,
 * wrong types and nulls are refused, so that nothing an operator did not mean can widen a replay.
 */
public final class RequestParser {
  /** The most ids one request may name, and the largest limit. */
  public static final int MAX_IDS = DeadLetterStore.MAX_ROWS_PER_REQUEST;

  public static final int DEFAULT_LIST_LIMIT = 50;
  public static final int DEFAULT_REPLAY_LIMIT = 100;

  public static final int DEFAULT_AUDIT_LIMIT = 50;

  /** Rows waiting for a destination one retarget or dead-lettering moves unless it says. */
  public static final int DEFAULT_WAITING_LIMIT = 100;

  static final Set<String> ACTIONS =
      Set.of("list", "replay", "discard", "audit", "retarget", "deadLetter");
  private static final String ACTION_NAMES =
      "\"list\", \"replay\", \"discard\", \"audit\", \"retarget\" or \"deadLetter\"";

  private static final Set<String> LIST_FIELDS =
      Set.of("action", "requestedBy", "filter", "limit", "cursor");
  private static final Set<String> REPLAY_FIELDS =
      Set.of(
          "action",
          "requestedBy",
          "ids",
          "filter",
          "all",
          "dryRun",
          "limit",
          "destination",
          "reason");
  private static final Set<String> DISCARD_FIELDS =
      Set.of("action", "requestedBy", "ids", "reason", "dryRun");
  private static final Set<String> FILTER_FIELDS =
      Set.of("eventType", "aggregateType", "aggregateId", "errorCode", "deadAtFrom", "deadAtTo");
  private static final Set<String> AUDIT_FIELDS =
      Set.of("action", "requestedBy", "filter", "limit", "cursor");
  private static final Set<String> RETARGET_FIELDS =
      Set.of("action", "requestedBy", "waitingFor", "destination", "limit", "dryRun", "reason");
  private static final Set<String> DEAD_LETTER_FIELDS =
      Set.of("action", "requestedBy", "waitingFor", "limit", "dryRun", "reason");
  private static final Set<String> AUDIT_FILTER_FIELDS =
      Set.of("deadLetterId", "requestedBy", "requestId", "action", "from", "to");

  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final int MAX_NAME = 255;
  private static final int MAX_ERROR_CODE = 128;
  private static final int MAX_REASON = 2_000;
  private static final int MAX_CURSOR = 200;

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
      throw new InvalidRequestException("action", "is required; use " + ACTION_NAMES);
    }
    if (!ACTIONS.contains(action)) {
      String hint = Typos.closest(action, ACTIONS);
      throw new InvalidRequestException(
          "action",
          "'"
              + action
              + "' is not an action"
              + (hint == null ? "" : "; did you mean '" + hint + "'?")
              + " Use "
              + ACTION_NAMES);
    }
    rejectFieldsOfOtherActions(root, action);
    String requestedBy = root.text("requestedBy", MAX_NAME);
    return switch (action) {
      case "list" -> list(root, requestedBy);
      case "replay" -> replay(root, requestedBy);
      case "audit" -> audit(root, requestedBy);
      case "retarget" -> retarget(root, requestedBy);
      case "deadLetter" -> deadLetterWaiting(root, requestedBy);
      default -> discard(root, requestedBy);
    };
  }

  private static RetargetRequest retarget(RequestFields root, String requestedBy) {
    String waitingFor = waitingFor(root);
    String destination = destination(root);
    if (destination == null) {
      throw new InvalidRequestException(
          "destination",
          "is required: the SNS topic ARN or SQS queue URL the waiting rows go to instead");
    }
    if (destination.equals(waitingFor)) {
      throw new InvalidRequestException(
          "destination", "is the destination the rows wait for; name another one");
    }
    int limit = root.integer("limit", DEFAULT_WAITING_LIMIT, 1, MAX_IDS);
    Boolean dryRun = root.bool("dryRun");
    return new RetargetRequest(
        waitingFor,
        destination,
        limit,
        dryRun == null || dryRun,
        root.text("reason", MAX_REASON),
        requestedBy);
  }

  private static DeadLetterWaitingRequest deadLetterWaiting(
      RequestFields root, String requestedBy) {
    String waitingFor = waitingFor(root);
    int limit = root.integer("limit", DEFAULT_WAITING_LIMIT, 1, MAX_IDS);
    Boolean dryRun = root.bool("dryRun");
    return new DeadLetterWaitingRequest(
        waitingFor, limit, dryRun == null || dryRun, root.text("reason", MAX_REASON), requestedBy);
  }

  /** The destination the rows to move wait for: required, a topic ARN or queue URL. */
  private static String waitingFor(RequestFields root) {
    String waitingFor = root.text("waitingFor", EventRules.MAX_DESTINATION_LENGTH);
    if (waitingFor == null) {
      throw new InvalidRequestException(
          "waitingFor",
          "is required: the destination the rows wait for, as action list shows it under"
              + " waiting.destinations");
    }
    String problem = Destinations.problemWith(waitingFor);
    if (problem != null) {
      throw new InvalidRequestException("waitingFor", problem);
    }
    return waitingFor;
  }

  /** The request's destination: an SNS topic ARN or SQS queue URL, or null when absent. */
  private static String destination(RequestFields root) {
    String destination = root.text("destination", EventRules.MAX_DESTINATION_LENGTH);
    if (destination != null) {
      String problem = Destinations.problemWith(destination);
      if (problem != null) {
        throw new InvalidRequestException("destination", problem);
      }
    }
    return destination;
  }

  private static ListRequest list(RequestFields root, String requestedBy) {
    DeadLetterFilter filter = filter(root);
    int limit = root.integer("limit", DEFAULT_LIST_LIMIT, 1, MAX_IDS);
    DeadLetterCursor cursor = cursor(root, DeadLetterCursor::decode, "list");
    return new ListRequest(
        filter == null ? DeadLetterFilter.all() : filter, limit, cursor, requestedBy);
  }

  private static AuditRequest audit(RequestFields root, String requestedBy) {
    AuditFilter filter = auditFilter(root);
    int limit = root.integer("limit", DEFAULT_AUDIT_LIMIT, 1, MAX_IDS);
    AuditCursor cursor = cursor(root, AuditCursor::decode, "audit");
    return new AuditRequest(filter, limit, cursor, requestedBy);
  }

  /** The request's cursor, read by {@code decode}; null when there is none. */
  private static <C> C cursor(
      RequestFields root, Function<String, Optional<C>> decode, String action) {
    String token = root.text("cursor", MAX_CURSOR);
    if (token == null) {
      return null;
    }
    return decode
        .apply(token)
        .orElseThrow(
            () ->
                new InvalidRequestException(
                    "cursor",
                    "is not a cursor this function returned for "
                        + action
                        + "; pass the nextCursor of the previous "
                        + action
                        + " response unchanged, with the same filter"));
  }

  /** The audit filter's criteria; every entry when the request has none. */
  private static AuditFilter auditFilter(RequestFields root) {
    RequestFields f = root.object("filter");
    if (f == null) {
      return AuditFilter.all();
    }
    f.allowOnly(AUDIT_FILTER_FIELDS, "an audit filter");
    String deadLetterId = f.text("deadLetterId", 64);
    String action = f.text("action", 32);
    if (action != null) {
      String upper = action.toUpperCase(Locale.ROOT);
      if (!AuditFilter.ACTIONS.contains(upper)) {
        String hint = Typos.closest(upper, AuditFilter.ACTIONS);
        throw new InvalidRequestException(
            "filter.action",
            "'"
                + action
                + "' is not an audited action"
                + (hint == null ? "" : "; did you mean '" + hint + "'?")
                + " Use one of "
                + String.join(", ", AuditFilter.ACTIONS.stream().sorted().toList()));
      }
      action = upper;
    }
    Instant from = f.instant("from");
    Instant to = f.instant("to");
    if (from != null && to != null && !from.isBefore(to)) {
      throw new InvalidRequestException(
          "filter.to",
          to
              + " is not after filter.from "
              + from
              + "; the range is from (inclusive) to (exclusive)");
    }
    return AuditFilter.builder()
        .deadLetterId(deadLetterId == null ? null : uuid("filter.deadLetterId", deadLetterId))
        .requestedBy(f.text("requestedBy", MAX_NAME))
        .requestId(f.text("requestId", MAX_NAME))
        .action(action)
        .from(from)
        .to(to)
        .build();
  }

  private static ReplayRequest replay(RequestFields root, String requestedBy) {
    boolean byIds = root.has("ids");
    if (byIds && root.has("filter")) {
      throw new InvalidRequestException(
          "filter",
          "cannot be combined with ids; name the rows either by ids or by a filter, not both");
    }
    if (byIds && root.has("all")) {
      throw new InvalidRequestException(
          "all", "applies only to a replay by filter; leave it out when giving ids");
    }
    if (byIds && root.has("limit")) {
      throw new InvalidRequestException(
          "limit",
          "applies only to a replay by filter; with ids, the ids themselves say which rows");
    }
    String destination = destination(root);
    String reason = root.text("reason", MAX_REASON);
    Boolean dryRun = root.bool("dryRun");
    if (byIds) {
      List<UUID> ids = ids(root);
      return new ReplayRequest(
          ids, null, ids.size(), dryRun != null && dryRun, destination, reason, requestedBy);
    }
    DeadLetterFilter filter = filter(root);
    Boolean all = root.bool("all");
    boolean noCriteria = filter == null || filter.isEmpty();
    if (noCriteria && !Boolean.TRUE.equals(all)) {
      throw new InvalidRequestException(
          "filter",
          (filter == null ? "is missing" : "has no criteria")
              + ": say which dead letters to replay with ids, or a filter with at least one of "
              + String.join(", ", FILTER_FIELDS.stream().sorted().toList())
              + ", or set \"all\": true (without a filter) to replay every dead letter up to"
              + " limit");
    }
    if (!noCriteria && Boolean.TRUE.equals(all)) {
      throw new InvalidRequestException(
          "all",
          "true means every dead letter, so it cannot be combined with a filter; remove one of"
              + " the two");
    }
    int limit = root.integer("limit", DEFAULT_REPLAY_LIMIT, 1, MAX_IDS);
    return new ReplayRequest(
        List.of(),
        noCriteria ? DeadLetterFilter.all() : filter,
        limit,
        dryRun == null || dryRun,
        destination,
        reason,
        requestedBy);
  }

  private static DiscardRequest discard(RequestFields root, String requestedBy) {
    if (!root.has("ids")) {
      throw new InvalidRequestException(
          "ids",
          "is required: discard removes only the dead letters named by id (find them with"
              + " action list)");
    }
    List<UUID> ids = ids(root);
    String reason = root.text("reason", MAX_REASON);
    if (reason == null) {
      throw new InvalidRequestException(
          "reason", "is required for a discard: say why these events may be dropped");
    }
    Boolean dryRun = root.bool("dryRun");
    return new DiscardRequest(ids, reason, dryRun != null && dryRun, requestedBy);
  }

  /** The filter object's criteria, or null when the request has none. */
  private static DeadLetterFilter filter(RequestFields root) {
    RequestFields f = root.object("filter");
    if (f == null) {
      return null;
    }
    f.allowOnly(FILTER_FIELDS, "filter");
    Instant from = f.instant("deadAtFrom");
    Instant to = f.instant("deadAtTo");
    if (from != null && to != null && !from.isBefore(to)) {
      throw new InvalidRequestException(
          "filter.deadAtTo",
          to
              + " is not after filter.deadAtFrom "
              + from
              + "; the range is from (inclusive) to"
              + " (exclusive)");
    }
    return DeadLetterFilter.builder()
        .eventType(f.text("eventType", MAX_NAME))
        .aggregateType(f.text("aggregateType", MAX_NAME))
        .aggregateId(f.text("aggregateId", MAX_NAME))
        .errorCode(f.text("errorCode", MAX_ERROR_CODE))
        .deadFrom(from)
        .deadTo(to)
        .build();
  }

  private static List<UUID> ids(RequestFields root) {
    ArrayNode array = root.array("ids");
    if (array.isEmpty()) {
      throw new InvalidRequestException(
          "ids", "is empty; name 1 to " + MAX_IDS + " dead-letter ids");
    }
    if (array.size() > MAX_IDS) {
      throw new InvalidRequestException(
          "ids",
          "names "
              + array.size()
              + " ids; at most "
              + MAX_IDS
              + " per request. Split the list, or replay by filter");
    }
    List<UUID> ids = new ArrayList<>(array.size());
    Map<UUID, Integer> seen = new HashMap<>();
    for (int i = 0; i < array.size(); i++) {
      JsonNode item = array.get(i);
      String field = "ids[" + i + "]";
      if (!item.isTextual()) {
        throw new InvalidRequestException(
            field, "must be a UUID string, not " + RequestFields.describe(item));
      }
      UUID id = uuid(field, item.textValue());
      Integer earlier = seen.putIfAbsent(id, i);
      if (earlier != null) {
        throw new InvalidRequestException(
            field, "repeats ids[" + earlier + "] (" + id + "); name each id once");
      }
      ids.add(id);
    }
    return ids;
  }

  /** {@code text} as a UUID, or a refusal naming {@code field}. */
  private static UUID uuid(String field, String text) {
    if (!UUID_TEXT.matcher(text).matches()) {
      throw new InvalidRequestException(
          field,
          "'"
              + text
              + "' is not a UUID (8-4-4-4-12 hex digits, e.g."
              + " 0190a6f2-7c1e-7d3a-9b1f-2f1c9a3e4b5d)");
    }
    return UUID.fromString(text.toLowerCase(Locale.ROOT));
  }

  /** Names a field that belongs to another action, or is no field at all. */
  private static void rejectFieldsOfOtherActions(RequestFields root, String action) {
    Set<String> allowed =
        switch (action) {
          case "list" -> LIST_FIELDS;
          case "replay" -> REPLAY_FIELDS;
          case "audit" -> AUDIT_FIELDS;
          case "retarget" -> RETARGET_FIELDS;
          case "deadLetter" -> DEAD_LETTER_FIELDS;
          default -> DISCARD_FIELDS;
        };
    String unknown = root.firstUnknown(allowed);
    if (unknown == null) {
      return;
    }
    List<String> owners = new ArrayList<>();
    if (LIST_FIELDS.contains(unknown)) {
      owners.add("list");
    }
    if (REPLAY_FIELDS.contains(unknown)) {
      owners.add("replay");
    }
    if (DISCARD_FIELDS.contains(unknown)) {
      owners.add("discard");
    }
    if (AUDIT_FIELDS.contains(unknown)) {
      owners.add("audit");
    }
    if (RETARGET_FIELDS.contains(unknown)) {
      owners.add("retarget");
    }
    if (DEAD_LETTER_FIELDS.contains(unknown)) {
      owners.add("deadLetter");
    }
    if (owners.isEmpty()) {
      root.allowOnly(allowed, "a " + action + " request");
    }
    throw new InvalidRequestException(
        unknown,
        "does not apply to action '"
            + action
            + "' (it belongs to "
            + (owners.size() == 1
                ? owners.get(0)
                : String.join(", ", owners.subList(0, owners.size() - 1))
                    + " and "
                    + owners.get(owners.size() - 1))
            + "). Fields of a "
            + action
            + " request: "
            + String.join(", ", allowed.stream().sorted().toList()));
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
