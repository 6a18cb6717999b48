package dev.lambdaoutbox.reprocessor.internal.action;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.reprocessor.internal.report.RedriveReport;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RedriveRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ResumeRedriveRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.StopRedriveRequest;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A failure group's re-drive: the canary, replayed alone and awaited (its outbox row polled, within
 * the time the invocation has left); then, only once it is delivered, the rest at a capped rate,
 * each row given a staggered due time, so that the pace outlasts the invocation; a stop that holds
 * what is not yet published, and a resume. Every step is one bounded request, and resumable: a
 * canary still pending is checked again by naming it ({@code "canary": id}).
 */
final class Redrives {
  /** How often the canary's row is read while it is awaited. */
  static final Duration CANARY_POLL = Duration.ofMillis(500);

  /**
   * Time kept back from the invocation's for the rest of the step after the canary: the group's
   * rows moved (up to 1,000) and the answer written.
   */
  static final Duration KEPT_FOR_THE_STEP = Duration.ofSeconds(20);

  private final DeadLetterStore store;

  Redrives(DeadLetterStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * The canary (replayed now, or named), awaited until its fate is known, the request's timeout or
   * the invocation's {@code timeLeft} (less what the step needs); then, if it was delivered, one
   * step of the group.
   */
  ObjectNode redrive(
      RedriveRequest r, String requestId, String requestedBy, AuditInfo audit, Duration timeLeft) {
    UUID canary = r.canary();
    if (canary == null) {
      DeadLetterActionResult replayed = store.replayCanary(r.group(), audit);
      if (replayed.applied().isEmpty()) {
        return report(
            r,
            requestId,
            requestedBy,
            null,
            Duration.ZERO,
            null,
            replayed.skipped().isEmpty()
                ? "The group has no dead letters: nothing to re-drive."
                : "No dead letter of the group could go back (see skipped): nothing re-driven.");
      }
      canary = replayed.applied().get(0);
    }
    long started = System.nanoTime();
    Duration budget = Duration.ofSeconds(r.canaryTimeoutSeconds());
    Duration left = timeLeft.minus(KEPT_FOR_THE_STEP);
    if (left.compareTo(budget) < 0) {
      budget = left.isNegative() ? Duration.ZERO : left;
    }
    CanaryCheck check = await(canary, budget);
    Duration waited = Duration.ofNanos(System.nanoTime() - started);
    return switch (check.state()) {
      case DELIVERED -> {
        RedriveStep step = store.redrive(r.group(), r.limit(), r.perSecond(), audit);
        yield report(
            r,
            requestId,
            requestedBy,
            check,
            waited,
            step,
            "The canary was delivered. " + stepMessage(step, r.group(), r.perSecond()));
      }
      case FAILED_AGAIN ->
          report(
              r,
              requestId,
              requestedBy,
              check,
              waited,
              null,
              "The canary failed again ("
                  + check.errorCode()
                  + "); the rest of the group stays dead. Fix the cause, then redrive again"
                  + " (a new canary).");
      case PENDING ->
          report(
              r,
              requestId,
              requestedBy,
              check,
              waited,
              null,
              "The canary is not published yet. To continue, send the same request with"
                  + " \"canary\": \""
                  + canary
                  + "\": it checks the canary again and re-drives the rest once it is delivered.");
    };
  }

  /** A redrive's answer, with where the group stands now. */
  private ObjectNode report(
      RedriveRequest r,
      String requestId,
      String requestedBy,
      CanaryCheck check,
      Duration waited,
      RedriveStep step,
      String message) {
    return RedriveReport.redrive(
        "redrive",
        requestId,
        requestedBy,
        r.group(),
        r.perSecond(),
        check,
        waited,
        step,
        store.redriveRows(r.group()),
        message);
  }

  /** Held rows first, then the group's dead letters, at the pace; no canary. */
  ObjectNode resume(ResumeRedriveRequest r, String requestId, String requestedBy, AuditInfo audit) {
    RedriveStep step = store.redrive(r.group(), r.limit(), r.perSecond(), audit);
    return RedriveReport.redrive(
        "resumeRedrive",
        requestId,
        requestedBy,
        r.group(),
        r.perSecond(),
        null,
        Duration.ZERO,
        step,
        store.redriveRows(r.group()),
        stepMessage(step, r.group(), r.perSecond()));
  }

  ObjectNode stop(StopRedriveRequest r, String requestId, String requestedBy, AuditInfo audit) {
    List<UUID> held = store.stopRedrive(r.group(), r.limit(), audit);
    return RedriveReport.stop(
        requestId, requestedBy, r.group(), held, store.redriveRows(r.group()));
  }

  private CanaryCheck await(UUID canary, Duration budget) {
    long deadline = System.nanoTime() + budget.toNanos();
    while (true) {
      CanaryCheck check = store.canary(canary);
      if (check.state() != CanaryCheck.State.PENDING || System.nanoTime() >= deadline) {
        return check;
      }
      try {
        Thread.sleep(
            Math.min(
                CANARY_POLL.toMillis(), Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return check; // the invocation is ending: report the canary as it stands
      }
    }
  }

  private static String stepMessage(RedriveStep step, String group, int perSecond) {
    return step.resumed()
        + " held row(s) resumed and "
        + step.replayed().applied().size()
        + " dead letter(s) replayed, due at "
        + perSecond
        + " a second"
        + (step.lastDue() == null ? "" : " until " + step.lastDue())
        + "."
        + (step.more()
            ? " The group has more: send {\"action\": \"resumeRedrive\", \"group\": \""
                + group
                + "\", \"ratePerSecond\": "
                + perSecond
                + "} to continue the pace."
            : "");
  }
}
