package dev.lambdaoutbox.reprocessor.internal.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.AuditRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.DiscardRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ListRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ReplayRequest;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The requests about dead letters, each read from its validated fields: {@code list} and {@code
 * audit} (a page, a cursor), {@code replay} (by ids, or by a filter or {@code "all": true}, with a
 * dry run by default) and {@code discard} (by ids only, with a reason).
 */
final class DeadLetterRequests {
  private DeadLetterRequests() {}

  static ReprocessorRequest list(RequestFields root, String requestedBy) {
    if (root.has("groupBy")) {
      return RedriveRequests.groups(root, requestedBy);
    }
    DeadLetterFilter filter = Filters.filter(root);
    int limit = root.integer("limit", RequestParser.DEFAULT_LIST_LIMIT, 1, RequestParser.MAX_IDS);
    DeadLetterCursor cursor = cursor(root, DeadLetterCursor::decode, "list");
    return new ListRequest(
        filter == null ? DeadLetterFilter.all() : filter, limit, cursor, requestedBy);
  }

  static AuditRequest audit(RequestFields root, String requestedBy) {
    AuditFilter filter = Filters.auditFilter(root);
    int limit = root.integer("limit", RequestParser.DEFAULT_AUDIT_LIMIT, 1, RequestParser.MAX_IDS);
    AuditCursor cursor = cursor(root, AuditCursor::decode, "audit");
    return new AuditRequest(filter, limit, cursor, requestedBy);
  }

  /** The request's cursor, read by {@code decode}; null when there is none. */
  private static <C> C cursor(
      RequestFields root, Function<String, Optional<C>> decode, String action) {
    String token = root.text("cursor", RequestParser.MAX_CURSOR);
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

  static ReplayRequest replay(RequestFields root, String requestedBy) {
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
    String destination = root.destination("destination");
    String reason = root.text("reason", RequestParser.MAX_REASON);
    Boolean dryRun = root.bool("dryRun");
    if (byIds) {
      List<UUID> ids = ids(root);
      return new ReplayRequest(
          ids, null, ids.size(), dryRun != null && dryRun, destination, reason, requestedBy);
    }
    DeadLetterFilter filter = Filters.filter(root);
    Boolean all = root.bool("all");
    boolean noCriteria = filter == null || filter.isEmpty();
    if (noCriteria && !Boolean.TRUE.equals(all)) {
      throw new InvalidRequestException(
          "filter",
          (filter == null ? "is missing" : "has no criteria")
              + ": say which dead letters to replay with ids, or a filter with at least one of "
              + String.join(", ", ActionFields.FILTER_FIELDS.stream().sorted().toList())
              + ", or set \"all\": true (without a filter) to replay every dead letter up to"
              + " limit");
    }
    if (!noCriteria && Boolean.TRUE.equals(all)) {
      throw new InvalidRequestException(
          "all",
          "true means every dead letter, so it cannot be combined with a filter; remove one of"
              + " the two");
    }
    int limit = root.integer("limit", RequestParser.DEFAULT_REPLAY_LIMIT, 1, RequestParser.MAX_IDS);
    return new ReplayRequest(
        List.of(),
        noCriteria ? DeadLetterFilter.all() : filter,
        limit,
        dryRun == null || dryRun,
        destination,
        reason,
        requestedBy);
  }

  static DiscardRequest discard(RequestFields root, String requestedBy) {
    if (!root.has("ids")) {
      throw new InvalidRequestException(
          "ids",
          "is required: discard removes only the dead letters named by id (find them with"
              + " action list)");
    }
    List<UUID> ids = ids(root);
    String reason = root.text("reason", RequestParser.MAX_REASON);
    if (reason == null) {
      throw new InvalidRequestException(
          "reason", "is required for a discard: say why these events may be dropped");
    }
    Boolean dryRun = root.bool("dryRun");
    return new DiscardRequest(ids, reason, dryRun != null && dryRun, requestedBy);
  }

  private static List<UUID> ids(RequestFields root) {
    ArrayNode array = root.array("ids");
    if (array.isEmpty()) {
      throw new InvalidRequestException(
          "ids", "is empty; name 1 to " + RequestParser.MAX_IDS + " dead-letter ids");
    }
    if (array.size() > RequestParser.MAX_IDS) {
      throw new InvalidRequestException(
          "ids",
          "names "
              + array.size()
              + " ids; at most "
              + RequestParser.MAX_IDS
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
      UUID id = RequestFields.uuid(field, item.textValue());
      Integer earlier = seen.putIfAbsent(id, i);
      if (earlier != null) {
        throw new InvalidRequestException(
            field, "repeats ids[" + earlier + "] (" + id + "); name each id once");
      }
      ids.add(id);
    }
    return ids;
  }
}
