package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.FailureGroup;
import dev.lambdaoutbox.store.model.deadletter.FailureGroupPage;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** The answers about failure groups: a listing by group, and each step of a group's re-drive. */
public final class RedriveReport {
  private RedriveReport() {}

  /** A page of failure groups, largest count first within the page. */
  public static ObjectNode groups(String requestId, FailureGroupPage page) {
    ObjectNode report = ReportJson.header("list", requestId);
    report.put("groupBy", "failure");
    ArrayNode groups = report.putArray("groups");
    for (FailureGroup g : page.groups()) {
      ObjectNode group = groups.addObject();
      group.put("group", g.fingerprint());
      group.put("count", Math.min(g.count(), DeadLetter.COUNT_CAP));
      group.put("countCapped", g.countCapped());
      group.put("errorCode", g.errorCode());
      group.put("reason", g.maskedReason());
      group.put("eventType", g.eventType());
      if (g.destination() != null) {
        group.put("destination", g.destination());
      }
      group.put("firstDeadAt", ReportJson.time(g.firstDeadAt()));
      group.put("lastDeadAt", ReportJson.time(g.lastDeadAt()));
      ArrayNode samples = group.putArray("sampleIds");
      g.sampleIds().forEach(id -> samples.add(id.toString()));
    }
    report.put("count", page.groups().size());
    report.put("backfilled", page.backfilled());
    report.put("unfingerprinted", Math.min(page.unfingerprinted(), DeadLetter.COUNT_CAP));
    report.put("unfingerprintedCapped", page.unfingerprinted() > DeadLetter.COUNT_CAP);
    if (page.next() != null) {
      report.put("nextCursor", page.next());
    }
    report.put(
        "message",
        page.groups().size()
            + " failure group(s)"
            + (page.next() == null ? "." : "; pass nextCursor as cursor for more.")
            + (page.unfingerprinted() == 0
                ? ""
                : " "
                    + page.unfingerprinted()
                    + " older dead letter(s) have no fingerprint yet and are in no group; each"
                    + " listing gives up to 1,000 of them theirs."));
    return report;
  }

  /**
   * A re-drive's answer: the canary's fate (if this step checked one), what the step moved, and
   * where the group stands.
   */
  public static ObjectNode redrive(
      String action,
      String requestId,
      String requestedBy,
      String group,
      int perSecond,
      CanaryCheck canary,
      Duration waited,
      RedriveStep step,
      RedriveRows progress,
      String message) {
    ObjectNode report = ReportJson.header(action, requestId);
    report.put("requestedBy", requestedBy);
    report.put("group", group);
    if (perSecond > 0) {
      report.put("ratePerSecond", perSecond);
    }
    if (canary != null) {
      ObjectNode c = report.putObject("canary");
      c.put("id", canary.id().toString());
      c.put("state", canary.state().name());
      if (canary.errorCode() != null) {
        c.put("errorCode", canary.errorCode());
        c.put("errorReason", canary.errorReason());
      }
      c.put("waitedMillis", waited.toMillis());
    }
    if (step != null) {
      report.put("resumed", step.resumed());
      replayed(report, step.replayed());
      if (step.lastDue() != null) {
        report.put("lastDue", ReportJson.time(step.lastDue()));
      }
      report.put("moreInGroup", step.more());
    }
    progress(report, progress);
    report.put("message", message);
    return report;
  }

  /** A stop's answer: the rows held, and where the group stands. */
  public static ObjectNode stop(
      String requestId, String requestedBy, String group, List<UUID> held, RedriveRows progress) {
    ObjectNode report = ReportJson.header("stopRedrive", requestId);
    report.put("requestedBy", requestedBy);
    report.put("group", group);
    ArrayNode ids = report.putArray("held");
    held.forEach(id -> ids.add(id.toString()));
    progress(report, progress);
    report.put(
        "message",
        held.size()
            + " row(s) of the group held: none is published until resumeRedrive."
            + (progress.scheduled() > 0
                ? " "
                    + progress.scheduled()
                    + " still scheduled (in flight, or more than the limit): stop again."
                : ""));
    return report;
  }

  private static void replayed(ObjectNode report, DeadLetterActionResult result) {
    ArrayNode replayed = report.putArray("replayed");
    result.applied().forEach(id -> replayed.add(id.toString()));
    ArrayNode skipped = report.putArray("skipped");
    for (DeadLetterActionResult.Skipped s : result.skipped()) {
      skipped.addObject().put("id", s.id().toString()).put("reason", s.reason().name());
    }
  }

  private static void progress(ObjectNode report, RedriveRows progress) {
    report
        .putObject("progress")
        .put("remaining", progress.remaining())
        .put("scheduled", progress.scheduled())
        .put("held", progress.held())
        .put("capped", DeadLetter.COUNT_CAP + 1);
  }
}
