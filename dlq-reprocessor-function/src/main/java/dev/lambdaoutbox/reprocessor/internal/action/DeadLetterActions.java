package dev.lambdaoutbox.reprocessor.internal.action;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.reprocessor.internal.report.ActionReport;
import dev.lambdaoutbox.reprocessor.internal.report.AuditReport;
import dev.lambdaoutbox.reprocessor.internal.report.ListReport;
import dev.lambdaoutbox.reprocessor.internal.report.RedriveReport;
import dev.lambdaoutbox.reprocessor.internal.report.RewindReport;
import dev.lambdaoutbox.reprocessor.internal.report.WaitingActionReport;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.AuditRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.DeadLetterWaitingRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.DiscardRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.GroupListRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ListRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RedriveRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ReplayRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.ResumeRedriveRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RetargetRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RewindRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.StopRedriveRequest;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionException;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.rewind.RewindStep;
import dev.lambdaoutbox.store.model.waiting.WaitingActionException;
import dev.lambdaoutbox.store.model.waiting.WaitingActionResult;
import dev.lambdaoutbox.store.rewind.RewindStore;
import dev.lambdaoutbox.store.waiting.WaitingRowStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Runs a validated request against the dead-letter store (and, for rows waiting for a destination
 * that is down, the waiting-row store; for a rewind, the rewind store) and reports what happened.
 */
public final class DeadLetterActions {
  /** Characters of each payload a listing shows; the full payload stays in the table. */
  public static final int PAYLOAD_PREVIEW_CHARS = 1_000;

  /** Parked aggregates a listing shows, longest parked first; the total counts them all. */
  public static final int PARKED_KEYS_LISTED = 100;

  /** The rows waiting for their time that a list shows, the first to come due. */
  public static final int WAITING_FOR_TIME_LISTED = 10;

  /** Events a rewind's dry run shows, and the characters of each payload it shows. */
  static final int REWIND_SAMPLE_SIZE = 10;

  static final int REWIND_PREVIEW_CHARS = 1_000;

  private final DeadLetterStore store;
  private final WaitingRowStore waiting;
  private final Clock clock;
  private final RewindStore rewinds;
  private final boolean ordered;
  private final Redrives redrives;

  /** Rows one listing by failure group gives a fingerprint, when older rows have none. */
  public static final int FINGERPRINTS_BACKFILLED_PER_LISTING = 1_000;

  /** Sample ids a listing by failure group shows per group. */
  public static final int GROUP_SAMPLES = 3;

  /** The time an action may take when the invocation does not say (a test's, say). */
  static final Duration DEFAULT_TIME_LEFT = Duration.ofMinutes(1);

  /**
   * @param ordered whether the poller orders by aggregate, which is what keeps a rewind's copies of
   *     one aggregate in order when one is retried
   */
  public DeadLetterActions(
      DeadLetterStore store,
      WaitingRowStore waiting,
      RewindStore rewinds,
      boolean ordered,
      Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.waiting = Objects.requireNonNull(waiting, "waiting");
    this.rewinds = Objects.requireNonNull(rewinds, "rewinds");
    this.ordered = ordered;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.redrives = new Redrives(store);
  }

  /**
   * What a request did.
   *
   * @param report the JSON answer; for a failure, the JSON error with what was committed
   * @param replayed rows put back into the outbox (never counts a dry run)
   * @param discarded rows removed (never counts a dry run)
   * @param failure the store's failure when a change stopped part-way, else null
   * @param rewound copies a rewind step scheduled (never counts a dry run)
   */
  public record Outcome(
      ObjectNode report, int replayed, int discarded, RuntimeException failure, int rewound) {
    Outcome(ObjectNode report, int replayed, int discarded, RuntimeException failure) {
      this(report, replayed, discarded, failure, 0);
    }
  }

  public Outcome run(
      ReprocessorRequest request, String requestId, Requester.Attribution attribution) {
    return run(request, requestId, attribution, DEFAULT_TIME_LEFT);
  }

  /**
   * Runs {@code request}; {@code timeLeft} is what the invocation has left, which bounds the wait
   * for a re-drive's canary.
   */
  public Outcome run(
      ReprocessorRequest request,
      String requestId,
      Requester.Attribution attribution,
      Duration timeLeft) {
    String requestedBy = attribution.requestedBy();
    return switch (request) {
      case GroupListRequest list ->
          new Outcome(
              RedriveReport.groups(
                  requestId,
                  store.failureGroups(
                      list.cursor(),
                      list.limit(),
                      GROUP_SAMPLES,
                      FINGERPRINTS_BACKFILLED_PER_LISTING)),
              0,
              0,
              null);
      case RedriveRequest redrive -> {
        ObjectNode report =
            redrives.redrive(
                redrive,
                requestId,
                requestedBy,
                attribution.audit(requestId, redrive.reason()),
                timeLeft);
        yield new Outcome(report, report.path("replayed").size(), 0, null);
      }
      case ResumeRedriveRequest resume -> {
        ObjectNode report =
            redrives.resume(
                resume, requestId, requestedBy, attribution.audit(requestId, resume.reason()));
        yield new Outcome(report, report.path("replayed").size(), 0, null);
      }
      case StopRedriveRequest stop ->
          new Outcome(
              redrives.stop(
                  stop, requestId, requestedBy, attribution.audit(requestId, stop.reason())),
              0,
              0,
              null);
      case ListRequest list -> {
        DeadLetterPage page =
            store.list(list.filter(), list.cursor(), list.limit(), PAYLOAD_PREVIEW_CHARS);
        yield new Outcome(
            ListReport.of(
                requestId,
                list.filter(),
                page,
                store.summarize(list.filter()),
                store.parkedKeys(PARKED_KEYS_LISTED),
                waiting.waiting(list.filter()),
                waiting.waitingForTime(WAITING_FOR_TIME_LISTED),
                clock.instant()),
            0,
            0,
            null);
      }
      case AuditRequest audit -> {
        AuditPage page =
            store.audit(audit.filter(), audit.cursor(), audit.limit(), PAYLOAD_PREVIEW_CHARS);
        yield new Outcome(AuditReport.of(requestId, audit.filter(), page), 0, 0, null);
      }
      case ReplayRequest replay -> {
        AuditInfo audit = attribution.audit(requestId, replay.reason());
        try {
          DeadLetterActionResult result =
              replay.byIds()
                  ? store.replay(replay.ids(), replay.destination(), replay.dryRun(), audit)
                  : store.replayMatching(
                      replay.filter(),
                      replay.limit(),
                      replay.destination(),
                      replay.dryRun(),
                      audit);
          yield new Outcome(
              ActionReport.of(
                  "replay", requestId, requestedBy, replay.filter(), replay.destination(), result),
              applied(result),
              0,
              null);
        } catch (DeadLetterActionException e) {
          yield failed(
              e,
              ActionReport.of(
                  "replay",
                  requestId,
                  requestedBy,
                  replay.filter(),
                  replay.destination(),
                  e.committed()),
              applied(e.committed()),
              0);
        }
      }
      case RetargetRequest retarget ->
          waitingAction(
              "retarget",
              requestId,
              requestedBy,
              retarget.waitingFor(),
              retarget.destination(),
              audit ->
                  waiting.retarget(
                      retarget.waitingFor(),
                      retarget.destination(),
                      retarget.limit(),
                      retarget.dryRun(),
                      audit),
              retarget.reason());
      case DeadLetterWaitingRequest deadLetter ->
          waitingAction(
              "deadLetter",
              requestId,
              requestedBy,
              deadLetter.waitingFor(),
              null,
              audit ->
                  waiting.deadLetter(
                      deadLetter.waitingFor(), deadLetter.limit(), deadLetter.dryRun(), audit),
              deadLetter.reason());
      case RewindRequest rewind -> rewind(rewind, requestId, attribution);
      case DiscardRequest discard -> {
        AuditInfo audit = attribution.audit(requestId, discard.reason());
        try {
          DeadLetterActionResult result = store.discard(discard.ids(), discard.dryRun(), audit);
          yield new Outcome(
              ActionReport.of("discard", requestId, requestedBy, null, null, result),
              0,
              applied(result),
              null);
        } catch (DeadLetterActionException e) {
          yield failed(
              e,
              ActionReport.of("discard", requestId, requestedBy, null, null, e.committed()),
              0,
              applied(e.committed()));
        }
      }
    };
  }

  /**
   * A rewind's dry run (counts and a sample) or its next step. A step is one transaction: a failure
   * commits nothing, and the same request with the same cursor does it again.
   */
  private Outcome rewind(
      RewindRequest rewind, String requestId, Requester.Attribution attribution) {
    RewindReport.Echo echo =
        new RewindReport.Echo(
            requestId,
            attribution.requestedBy(),
            rewind.range(),
            rewind.destination(),
            rewind.pacing().eventsPerSecond(),
            ordered);
    if (rewind.dryRun()) {
      return new Outcome(
          RewindReport.preview(
              echo, rewinds.preview(rewind.range(), REWIND_SAMPLE_SIZE, REWIND_PREVIEW_CHARS)),
          0,
          0,
          null);
    }
    RewindStep step =
        rewinds.step(
            rewind.range(),
            rewind.destination(),
            rewind.pacing(),
            rewind.limit(),
            rewind.cursor(),
            attribution.audit(requestId, rewind.reason()));
    return new Outcome(RewindReport.step(echo, step), 0, 0, null, step.copied());
  }

  /** Runs a retarget or dead-lettering of waiting rows, and reports it, or what it committed. */
  private static Outcome waitingAction(
      String verb,
      String requestId,
      String requestedBy,
      String waitingFor,
      String destination,
      Function<AuditInfo, WaitingActionResult> action,
      String reason) {
    try {
      WaitingActionResult result = action.apply(new AuditInfo(requestId, requestedBy, reason));
      return new Outcome(
          WaitingActionReport.of(verb, requestId, requestedBy, waitingFor, destination, result),
          0,
          0,
          null);
    } catch (WaitingActionException e) {
      return failed(
          e,
          WaitingActionReport.of(
              verb, requestId, requestedBy, waitingFor, destination, e.committed()),
          0,
          0);
    }
  }

  private static Outcome failed(
      RuntimeException e, ObjectNode committed, int replayed, int discarded) {
    ObjectNode error = JsonSupport.mapper().createObjectNode();
    error.put("error", "ActionFailed");
    error.put("message", e.getMessage());
    error.set("committed", committed);
    return new Outcome(error, replayed, discarded, e);
  }

  private static int applied(DeadLetterActionResult result) {
    return result.dryRun() ? 0 : result.applied().size();
  }
}
