package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.store.model.rewind.RewindPreview;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.model.rewind.RewindStep;
import java.time.Duration;

/**
 * The answer to {@code rewind}: for a dry run, how many delivered events the range matches, how
 * long they take at the rate, and a sample; for a step, what it scheduled, where the rewind stands
 * and the cursor to send next.
 */
public final class RewindReport {
  private RewindReport() {}

  /** The request as the report echoes it. */
  public record Echo(
      String requestId,
      String requestedBy,
      RewindRange range,
      String destination,
      int ratePerSecond,
      boolean ordered) {}

  /** A dry run's answer: counts and a sample, nothing changed. */
  public static ObjectNode preview(Echo echo, RewindPreview preview) {
    ObjectNode report = header(echo, true);
    report.put("matching", preview.matching());
    report.put("matchingComplete", preview.complete());
    report.put("scannedSentRows", preview.scanned());
    long seconds = (preview.matching() + echo.ratePerSecond() - 1) / echo.ratePerSecond();
    report.put("estimatedSeconds", seconds);
    ArrayNode sample = report.putArray("sample");
    for (RewindPreview.Sample s : preview.sample()) {
      sample
          .addObject()
          .put("id", s.id().toString())
          .put("eventType", s.eventType())
          .put("aggregateType", s.aggregateType())
          .put("aggregateId", s.aggregateId())
          .put("occurredAt", ReportJson.time(s.occurredAt()))
          .put("sentAt", ReportJson.time(s.sentAt()))
          .put("payload", s.payloadPreview())
          .put("payloadLength", s.payloadLength())
          .put(
              "payloadTruncated",
              s.payloadLength()
                  > s.payloadPreview().codePointCount(0, s.payloadPreview().length()));
    }
    report.put(
        "message",
        "Dry run: nothing was changed. "
            + (preview.complete() ? "" : "At least ")
            + preview.matching()
            + " delivered event(s) match; at "
            + echo.ratePerSecond()
            + " a second they take about "
            + Duration.ofSeconds(seconds)
            + " to send. To start, send the same request with \"dryRun\": false."
            + orderNote(echo));
    return report;
  }

  /** A step's answer: what it scheduled, and the cursor of the next step. */
  public static ObjectNode step(Echo echo, RewindStep step) {
    ObjectNode report = header(echo, false);
    report.put("rewindId", step.rewindId().toString());
    report.put("scheduled", step.copied());
    report.put("alreadyScheduled", step.alreadyCopied());
    report.put("scheduledInAll", step.copiedInAll());
    report.put("firstDueAt", ReportJson.time(step.firstDueAt()));
    report.put("lastDueAt", ReportJson.time(step.lastDueAt()));
    report.put("reachedSentAt", ReportJson.time(step.reachedSentAt()));
    report.put("done", step.done());
    report.put("nextCursor", step.done() ? null : step.next().encode());
    report.put(
        "message",
        step.copied()
            + " copie(s) scheduled to "
            + echo.destination()
            + (step.lastDueAt() == null ? "" : ", due until " + step.lastDueAt())
            + "; "
            + step.copiedInAll()
            + " in all for rewind "
            + step.rewindId()
            + ". "
            + (step.done()
                ? "The range is done."
                : "Send the same request with \"cursor\": nextCursor for the next step, best"
                    + " shortly before lastDueAt.")
            + orderNote(echo));
    return report;
  }

  private static ObjectNode header(Echo echo, boolean dryRun) {
    ObjectNode report = ReportJson.header("rewind", echo.requestId());
    report.put("requestedBy", echo.requestedBy());
    report.put("dryRun", dryRun);
    ObjectNode filter = report.putObject("filter");
    filter.put("sentFrom", echo.range().sentFrom().toString());
    filter.put("sentTo", echo.range().sentTo().toString());
    putIfSet(filter, "eventType", echo.range().eventType());
    putIfSet(filter, "aggregateType", echo.range().aggregateType());
    putIfSet(filter, "aggregateId", echo.range().aggregateId());
    report.put("destination", echo.destination());
    report.put("ratePerSecond", echo.ratePerSecond());
    report.put("ordered", echo.ordered());
    return report;
  }

  private static String orderNote(Echo echo) {
    return echo.ordered()
        ? ""
        : " The poller does not order by aggregate (Ordering none): a copy retried after a"
            + " failure may arrive after the next copy of its aggregate.";
  }

  private static void putIfSet(ObjectNode node, String name, String value) {
    if (value != null) {
      node.put(name, value);
    }
  }
}
