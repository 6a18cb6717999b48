package dev.lambdaoutbox.reprocessor.internal.request;

import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import java.time.Instant;
import java.util.Locale;

/**
 * The {@code filter} objects of a request: which dead letters a list or replay selects (event type,
 * aggregate, error code, when they died), and which audit entries an audit lists (dead letter, who,
 * which request, which action, when). A time range runs from (inclusive) to (exclusive).
 */
final class Filters {
  private Filters() {}

  /** The filter object's criteria, or null when the request has none. */
  static DeadLetterFilter filter(RequestFields root) {
    RequestFields f = root.object("filter");
    if (f == null) {
      return null;
    }
    f.allowOnly(ActionFields.FILTER_FIELDS, "filter");
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
        .eventType(f.text("eventType", RequestParser.MAX_NAME))
        .aggregateType(f.text("aggregateType", RequestParser.MAX_NAME))
        .aggregateId(f.text("aggregateId", RequestParser.MAX_NAME))
        .errorCode(f.text("errorCode", RequestParser.MAX_ERROR_CODE))
        .deadFrom(from)
        .deadTo(to)
        .build();
  }

  /** The audit filter's criteria; every entry when the request has none. */
  static AuditFilter auditFilter(RequestFields root) {
    RequestFields f = root.object("filter");
    if (f == null) {
      return AuditFilter.all();
    }
    f.allowOnly(ActionFields.AUDIT_FILTER_FIELDS, "an audit filter");
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
        .deadLetterId(
            deadLetterId == null ? null : RequestFields.uuid("filter.deadLetterId", deadLetterId))
        .requestedBy(f.text("requestedBy", RequestParser.MAX_NAME))
        .requestId(f.text("requestId", RequestParser.MAX_NAME))
        .action(action)
        .from(from)
        .to(to)
        .build();
  }
}
