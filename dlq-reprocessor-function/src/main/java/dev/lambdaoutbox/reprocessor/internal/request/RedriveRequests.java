package dev.lambdaoutbox.reprocessor.internal.request;

import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.GroupListRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RedriveRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ResumeRedriveRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.StopRedriveRequest;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.PacedDueTimes;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The requests about failure groups: {@code list} by group, and a group's {@code redrive} (canary
 * first), {@code stopRedrive} and {@code resumeRedrive}.
 */
final class RedriveRequests {
  /** Groups a listing shows unless it says. */
  static final int DEFAULT_GROUP_LIMIT = 20;

  /** Rows one re-drive step moves unless it says. */
  static final int DEFAULT_REDRIVE_LIMIT = DeadLetterStore.MAX_ROWS_PER_REQUEST;

  /** How long a re-drive waits for its canary unless it says, and at most. */
  static final int DEFAULT_CANARY_TIMEOUT_SECONDS = 60;

  static final int MAX_CANARY_TIMEOUT_SECONDS = 600;

  private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{32}");

  private RedriveRequests() {}

  static GroupListRequest groups(RequestFields root, String requestedBy) {
    String groupBy = root.text("groupBy", 32);
    if (!"failure".equals(groupBy)) {
      throw new InvalidRequestException(
          "groupBy", "'" + groupBy + "' is not a grouping; use \"failure\"");
    }
    if (root.has("filter")) {
      throw new InvalidRequestException(
          "filter",
          "does not apply to a listing by failure group, which covers every dead letter; list"
              + " a group's rows with a filter and without groupBy");
    }
    int limit = root.integer("limit", DEFAULT_GROUP_LIMIT, 1, DeadLetterStore.MAX_GROUPS_PER_PAGE);
    String cursor = root.has("cursor") ? fingerprint(root, "cursor") : null;
    return new GroupListRequest(limit, cursor, requestedBy);
  }

  static RedriveRequest redrive(RequestFields root, String requestedBy) {
    String group = fingerprint(root, "group");
    int rate = rate(root);
    int limit = limit(root);
    String canaryText = root.text("canary", 64);
    UUID canary = canaryText == null ? null : RequestFields.uuid("canary", canaryText);
    int timeout =
        root.integer(
            "canaryTimeoutSeconds", DEFAULT_CANARY_TIMEOUT_SECONDS, 0, MAX_CANARY_TIMEOUT_SECONDS);
    return new RedriveRequest(
        group,
        rate,
        limit,
        canary,
        timeout,
        root.text("reason", RequestParser.MAX_REASON),
        requestedBy);
  }

  static StopRedriveRequest stop(RequestFields root, String requestedBy) {
    return new StopRedriveRequest(
        fingerprint(root, "group"),
        limit(root),
        root.text("reason", RequestParser.MAX_REASON),
        requestedBy);
  }

  static ResumeRedriveRequest resume(RequestFields root, String requestedBy) {
    return new ResumeRedriveRequest(
        fingerprint(root, "group"),
        rate(root),
        limit(root),
        root.text("reason", RequestParser.MAX_REASON),
        requestedBy);
  }

  /** A failure group's fingerprint, required: 32 lower-case hex digits, as a listing gives it. */
  private static String fingerprint(RequestFields root, String name) {
    String text = root.text(name, 64);
    if (text == null) {
      throw new InvalidRequestException(
          name,
          "is required: the fingerprint of a failure group, as"
              + " {\"action\": \"list\", \"groupBy\": \"failure\"} gives it");
    }
    if (!FINGERPRINT.matcher(text).matches()) {
      throw new InvalidRequestException(
          name,
          "'"
              + text
              + "' is not a failure group's fingerprint (32 lower-case hex digits, as a listing"
              + " by group gives it)");
    }
    return text;
  }

  /** The pace, required: no re-drive goes at full speed by default. */
  private static int rate(RequestFields root) {
    if (!root.has("ratePerSecond")) {
      throw new InvalidRequestException(
          "ratePerSecond",
          "is required: the most events a second the group's rows go back at, 1 to "
              + PacedDueTimes.MAX_PER_SECOND);
    }
    return root.integer("ratePerSecond", 0, 1, PacedDueTimes.MAX_PER_SECOND);
  }

  private static int limit(RequestFields root) {
    return root.integer("limit", DEFAULT_REDRIVE_LIMIT, 1, RequestParser.MAX_IDS);
  }
}
