package dev.lambdaoutbox.reprocessor.internal.request;

import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which fields each action's request may have, and the refusal of a field that belongs to another
 * action (naming the actions it belongs to) or to none (naming the one meant, if it is a typo).
 */
final class ActionFields {
  /** The fields of each action's request, in the order the actions are listed to operators. */
  static final Map<String, Set<String>> BY_ACTION = byAction();

  /** The actions' names, as a refusal lists them. */
  static final String ACTION_NAMES =
      "\"list\", \"replay\", \"discard\", \"audit\", \"retarget\", \"deadLetter\", \"rewind\","
          + " \"redrive\", \"stopRedrive\" or \"resumeRedrive\"";

  static final Set<String> FILTER_FIELDS =
      Set.of("eventType", "aggregateType", "aggregateId", "errorCode", "deadAtFrom", "deadAtTo");

  static final Set<String> REWIND_FILTER_FIELDS =
      Set.of("sentFrom", "sentTo", "eventType", "aggregateType", "aggregateId");

  static final Set<String> AUDIT_FILTER_FIELDS =
      Set.of("deadLetterId", "requestedBy", "requestId", "action", "from", "to");

  private ActionFields() {}

  private static Map<String, Set<String>> byAction() {
    Map<String, Set<String>> fields = new LinkedHashMap<>();
    fields.put("list", Set.of("action", "requestedBy", "filter", "limit", "cursor", "groupBy"));
    fields.put(
        "replay",
        Set.of(
            "action",
            "requestedBy",
            "ids",
            "filter",
            "all",
            "dryRun",
            "limit",
            "destination",
            "reason"));
    fields.put("discard", Set.of("action", "requestedBy", "ids", "reason", "dryRun"));
    fields.put("audit", Set.of("action", "requestedBy", "filter", "limit", "cursor"));
    fields.put(
        "retarget",
        Set.of("action", "requestedBy", "waitingFor", "destination", "limit", "dryRun", "reason"));
    fields.put(
        "deadLetter", Set.of("action", "requestedBy", "waitingFor", "limit", "dryRun", "reason"));
    fields.put(
        "rewind",
        Set.of(
            "action",
            "requestedBy",
            "filter",
            "destination",
            "ratePerSecond",
            "limit",
            "dryRun",
            "cursor",
            "reason"));
    fields.put(
        "redrive",
        Set.of(
            "action",
            "requestedBy",
            "group",
            "ratePerSecond",
            "limit",
            "canary",
            "canaryTimeoutSeconds",
            "reason"));
    fields.put("stopRedrive", Set.of("action", "requestedBy", "group", "limit", "reason"));
    fields.put(
        "resumeRedrive",
        Set.of("action", "requestedBy", "group", "ratePerSecond", "limit", "reason"));
    return Map.copyOf(fields);
  }

  /** Names a field of {@code root} that belongs to another action, or is no field at all. */
  static void rejectFieldsOfOtherActions(RequestFields root, String action) {
    Set<String> allowed = BY_ACTION.get(action);
    String unknown = root.firstUnknown(allowed);
    if (unknown == null) {
      return;
    }
    List<String> owners = new ArrayList<>();
    for (String other :
        List.of(
            "list",
            "replay",
            "discard",
            "audit",
            "retarget",
            "deadLetter",
            "rewind",
            "redrive",
            "stopRedrive",
            "resumeRedrive")) {
      if (BY_ACTION.get(other).contains(unknown)) {
        owners.add(other);
      }
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
}
