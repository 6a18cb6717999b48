package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.sql.Params;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A WHERE clause built from a filter and a keyset position: over the dead-letter table ({@link
 * DeadLetterFilter}, {@link DeadLetterCursor}) or the audit table ({@link AuditFilter}, {@link
 * AuditCursor}). The values go into the statement's {@link Params} (named {@code eventType}, {@code
 * deadFrom}, {@code afterAt}, ...), never into the SQL.
 */
public final class Conditions {
  private final UnaryOperator<String> timestampParam;
  private final Params params;
  private final List<String> clauses = new ArrayList<>();

  /**
   * @param timestampParam the dialect's spelling of a timestamp parameter, given its name
   * @param params where the values go
   */
  public Conditions(UnaryOperator<String> timestampParam, Params params) {
    this.timestampParam = timestampParam;
    this.params = params;
  }

  /** The criteria {@code filter} sets. */
  public Conditions matching(DeadLetterFilter filter) {
    text("event_type", "eventType", filter.eventType());
    text("aggregate_type", "aggregateType", filter.aggregateType());
    text("aggregate_id", "aggregateId", filter.aggregateId());
    text("error_code", "errorCode", filter.errorCode());
    range("dead_at", "deadFrom", filter.deadFrom(), "deadTo", filter.deadTo());
    return this;
  }

  /** Rows after {@code cursor} in listing order (dead_at, id); no condition for null. */
  public Conditions after(DeadLetterCursor cursor) {
    if (cursor != null) {
      String at = timestampParam.apply("afterAt");
      clauses.add("(dead_at > " + at + " OR (dead_at = " + at + " AND id > :afterId))");
      params.timestamp("afterAt", cursor.deadAt()).uuid("afterId", cursor.id());
    }
    return this;
  }

  /** The audit criteria {@code filter} sets. */
  public Conditions matching(AuditFilter filter) {
    UUID deadLetterId = filter.deadLetterId();
    if (deadLetterId != null) {
      clauses.add("dead_letter_id = :deadLetterId");
      params.uuid("deadLetterId", deadLetterId);
    }
    text("requested_by", "requestedBy", filter.requestedBy());
    text("request_id", "requestId", filter.requestId());
    text("action", "action", filter.action());
    range("created_at", "from", filter.from(), "to", filter.to());
    return this;
  }

  /** Audit entries written before the one {@code cursor} names (newest first); none for null. */
  public Conditions before(AuditCursor cursor) {
    if (cursor != null) {
      clauses.add("audit_id < :beforeAuditId");
      params.longValue("beforeAuditId", cursor.auditId());
    }
    return this;
  }

  /** " WHERE a AND b", or "" when there is no condition. */
  public String where() {
    return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
  }

  private void text(String column, String name, String value) {
    if (value != null) {
      clauses.add(column + " = :" + name);
      params.text(name, value);
    }
  }

  /** {@code from <= column < to}, each bound only when given. */
  private void range(String column, String fromName, Instant from, String toName, Instant to) {
    if (from != null) {
      clauses.add(column + " >= " + timestampParam.apply(fromName));
      params.timestamp(fromName, from);
    }
    if (to != null) {
      clauses.add(column + " < " + timestampParam.apply(toName));
      params.timestamp(toName, to);
    }
  }
}
