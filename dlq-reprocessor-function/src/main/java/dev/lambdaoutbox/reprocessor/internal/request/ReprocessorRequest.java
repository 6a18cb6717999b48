package dev.lambdaoutbox.reprocessor.internal.request;

import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPacing;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import java.util.List;
import java.util.UUID;

/** A validated operator request: one of the actions. */
public sealed interface ReprocessorRequest {
  /** Who asked, as the request says; null when it does not. */
  String requestedBy();

  /** The action's name as the request gives it. */
  String action();

  /**
   * {@code list}: a page of dead letters and the summary of all that match.
   *
   * @param cursor where the page starts; null for the first
   */
  record ListRequest(
      DeadLetterFilter filter, int limit, DeadLetterCursor cursor, String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "list";
    }
  }

  /**
   * {@code replay}: by ids, or by filter (then {@code ids} is empty and {@code limit} bounds it).
   *
   * @param filter null for a replay by ids
   * @param destination the override, or null to keep each row's own destination
   * @param reason null when none was given
   */
  record ReplayRequest(
      List<UUID> ids,
      DeadLetterFilter filter,
      int limit,
      boolean dryRun,
      String destination,
      String reason,
      String requestedBy)
      implements ReprocessorRequest {
    public ReplayRequest {
      ids = List.copyOf(ids);
    }

    public boolean byIds() {
      return filter == null;
    }

    @Override
    public String action() {
      return "replay";
    }
  }

  /** {@code discard}: by ids only, with a reason. */
  record DiscardRequest(List<UUID> ids, String reason, boolean dryRun, String requestedBy)
      implements ReprocessorRequest {
    public DiscardRequest {
      ids = List.copyOf(ids);
    }

    @Override
    public String action() {
      return "discard";
    }
  }

  /**
   * {@code retarget}: up to {@code limit} rows waiting for {@code waitingFor} (a destination that
   * is down) go to {@code destination} instead.
   *
   * @param reason null when none was given
   */
  record RetargetRequest(
      String waitingFor,
      String destination,
      int limit,
      boolean dryRun,
      String reason,
      String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "retarget";
    }
  }

  /**
   * {@code deadLetter}: up to {@code limit} rows waiting for {@code waitingFor} (a destination that
   * is down) move to the dead letters.
   *
   * @param reason null when none was given
   */
  record DeadLetterWaitingRequest(
      String waitingFor, int limit, boolean dryRun, String reason, String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "deadLetter";
    }
  }

  /**
   * {@code list} with {@code "groupBy": "failure"}: a page of failure groups.
   *
   * @param cursor the fingerprint the page starts after; null for the first
   */
  record GroupListRequest(int limit, String cursor, String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "list";
    }
  }

  /**
   * {@code redrive}: a failure group's canary (or the check of one an earlier invocation replayed),
   * then, once it is delivered, up to {@code limit} of the group's rows at {@code perSecond}.
   *
   * @param canary the canary an earlier invocation replayed; null to replay one now
   * @param canaryTimeoutSeconds how long to wait for the canary's fate
   * @param reason null when none was given
   */
  record RedriveRequest(
      String group,
      int perSecond,
      int limit,
      UUID canary,
      int canaryTimeoutSeconds,
      String reason,
      String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "redrive";
    }
  }

  /**
   * {@code stopRedrive}: holds up to {@code limit} of the group's re-driven rows not yet published.
   *
   * @param reason null when none was given
   */
  record StopRedriveRequest(String group, int limit, String reason, String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "stopRedrive";
    }
  }

  /**
   * {@code resumeRedrive}: the held rows, then the group's dead letters left, up to {@code limit},
   * at {@code perSecond}; no canary.
   *
   * @param reason null when none was given
   */
  record ResumeRedriveRequest(
      String group, int perSecond, int limit, String reason, String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "resumeRedrive";
    }
  }

  /**
   * {@code audit}: a page of what operators did to dead letters, newest first. Reads only.
   *
   * @param cursor where the page starts; null for the first
   */
  record AuditRequest(AuditFilter filter, int limit, AuditCursor cursor, String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "audit";
    }
  }

  /**
   * {@code rewind}: delivered events of {@code range} copied to {@code destination} at {@code
   * pacing}'s rate, up to {@code limit} this step; a dry run unless it says otherwise.
   *
   * @param cursor where the rewind stands (the previous step's {@code nextCursor}); null to start
   * @param reason null when none was given
   */
  record RewindRequest(
      RewindRange range,
      String destination,
      RewindPacing pacing,
      int limit,
      boolean dryRun,
      RewindCursor cursor,
      String reason,
      String requestedBy)
      implements ReprocessorRequest {
    @Override
    public String action() {
      return "rewind";
    }
  }
}
