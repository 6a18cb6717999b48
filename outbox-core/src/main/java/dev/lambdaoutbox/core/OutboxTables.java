package dev.lambdaoutbox.core;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The names of the outbox tables, all sharing one validated prefix. The prefix is spliced into SQL,
 * so it must be a plain SQL identifier fragment: letters, digits and underscores, starting with a
 * letter or underscore.
 */
public record OutboxTables(String prefix) {
  /**
   * Longest prefix that keeps every table and index name within PostgreSQL's 63-character limit.
   */
  public static final int MAX_PREFIX_LENGTH = 24;

  /**
   * The outbox columns that hold what an event says, in the order the writer inserts them and a
   * claim reads them back; the row's own bookkeeping (its times and counts) follows them.
   */
  public static final List<String> EVENT_COLUMNS =
      List.of(
          "id",
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "payload",
          "headers",
          "destination",
          "idempotency_key",
          "occurred_at");

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final OutboxTables DEFAULT = new OutboxTables("");

  public OutboxTables {
    if (prefix == null) {
      throw new IllegalArgumentException("tablePrefix: must not be null (use \"\" for no prefix)");
    }
    if (!prefix.isEmpty() && !IDENTIFIER.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "tablePrefix: '"
              + prefix
              + "' is not a valid SQL identifier prefix; use letters, digits and underscores, starting"
              + " with a letter or underscore");
    }
    if (prefix.length() > MAX_PREFIX_LENGTH) {
      throw new IllegalArgumentException(
          "tablePrefix: '" + prefix + "' is longer than " + MAX_PREFIX_LENGTH + " characters");
    }
  }

  /** The tables without a prefix: {@code outbox_messages}, {@code outbox_dead_letters}, ... */
  public static OutboxTables defaults() {
    return DEFAULT;
  }

  public static OutboxTables withPrefix(String prefix) {
    return new OutboxTables(prefix);
  }

  public String messages() {
    return prefix + "outbox_messages";
  }

  public String deadLetters() {
    return prefix + "outbox_dead_letters";
  }

  public String deadLetterAudit() {
    return prefix + "outbox_dead_letter_audit";
  }

  /** Idempotency keys held for the idempotency window, each with the first event that used it. */
  public String idempotencyKeys() {
    return prefix + "outbox_idempotency_keys";
  }

  /** Destinations found down or misconfigured, shared by every poller (migration V3). */
  public String destinationHealth() {
    return prefix + "outbox_destination_health";
  }

  /** Aggregates parked behind a dead letter while ordering is on (migration V5). */
  public String parkedKeys() {
    return prefix + "outbox_parked_keys";
  }

  /** Short leases the pollers share, such as the lingering woken run's (migration V8). */
  public String pollerLeases() {
    return prefix + "outbox_poller_leases";
  }

  /**
   * Where the ordered claim's walk of the aggregates stands, shared by every poller (migration V9).
   */
  public String claimCursors() {
    return prefix + "outbox_claim_cursors";
  }

  public String inbox() {
    return prefix + "inbox_processed_messages";
  }

  public String schemaHistory() {
    return prefix + "outbox_schema_history";
  }
}
