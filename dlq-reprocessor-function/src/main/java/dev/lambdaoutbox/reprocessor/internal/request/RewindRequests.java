package dev.lambdaoutbox.reprocessor.internal.request;

import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RewindRequest;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPacing;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.rewind.RewindStore;
import java.time.Duration;
import java.time.Instant;

/**
 * The {@code rewind} request: which delivered events (a range of sent times, required and at most
 * {@link RewindRange#MAX_SPAN}; an event type and an aggregate, optional), where the copies go
 * (required), at what rate (required), how many this step, and where the rewind stands ({@code
 * cursor}); a dry run unless {@code "dryRun": false}.
 */
final class RewindRequests {
  /** Copies one step writes unless the request says. */
  static final int DEFAULT_LIMIT = 500;

  private RewindRequests() {}

  static RewindRequest rewind(RequestFields root, String requestedBy) {
    RewindRange range = range(root);
    String destination = root.destination("destination");
    if (destination == null) {
      throw new InvalidRequestException(
          "destination",
          "is required: the SNS topic ARN or SQS queue URL the copies go to (one of"
              + " OUTBOX_REPLAY_DESTINATIONS)");
    }
    if (!root.has("ratePerSecond")) {
      throw new InvalidRequestException(
          "ratePerSecond",
          "is required: the most copies a second the poller sends, 1 to "
              + RewindPacing.MAX_EVENTS_PER_SECOND
              + " (choose what the new subscriber can take)");
    }
    RewindPacing pacing =
        new RewindPacing(root.integer("ratePerSecond", 1, 1, RewindPacing.MAX_EVENTS_PER_SECOND));
    int limit = root.integer("limit", DEFAULT_LIMIT, 1, RewindStore.MAX_EVENTS_PER_STEP);
    Boolean dryRun = root.bool("dryRun");
    boolean dry = dryRun == null || dryRun;
    RewindCursor cursor = cursor(root, range, destination, pacing);
    if (cursor != null && dry) {
      throw new InvalidRequestException(
          "cursor",
          "continues a rewind, which a dry run does not do; send \"dryRun\": false with it, or"
              + " leave it out to look at the whole range again");
    }
    return new RewindRequest(
        range,
        destination,
        pacing,
        limit,
        dry,
        cursor,
        root.text("reason", RequestParser.MAX_REASON),
        requestedBy);
  }

  private static RewindRange range(RequestFields root) {
    RequestFields f = root.object("filter");
    if (f == null) {
      throw new InvalidRequestException(
          "filter",
          "is required: at least filter.sentFrom and filter.sentTo, the times the events were"
              + " delivered (sent), from (inclusive) to (exclusive)");
    }
    f.allowOnly(ActionFields.REWIND_FILTER_FIELDS, "a rewind filter");
    Instant from = f.instant("sentFrom");
    Instant to = f.instant("sentTo");
    if (from == null || to == null) {
      throw new InvalidRequestException(
          from == null ? "filter.sentFrom" : "filter.sentTo",
          "is required: a rewind copies the events delivered (sent) from filter.sentFrom"
              + " (inclusive) to filter.sentTo (exclusive), ISO-8601 with a zone offset");
    }
    if (!from.isBefore(to)) {
      throw new InvalidRequestException(
          "filter.sentTo",
          to
              + " is not after filter.sentFrom "
              + from
              + "; the range is from (inclusive) to"
              + " (exclusive)");
    }
    if (Duration.between(from, to).compareTo(RewindRange.MAX_SPAN) > 0) {
      throw new InvalidRequestException(
          "filter.sentTo",
          "is "
              + Duration.between(from, to).toHours()
              + " hours after filter.sentFrom; a rewind covers at most "
              + RewindRange.MAX_SPAN.toDays()
              + " days. Rewind the range in parts");
    }
    return new RewindRange(
        from,
        to,
        f.text("eventType", RequestParser.MAX_NAME),
        f.text("aggregateType", RequestParser.MAX_NAME),
        f.text("aggregateId", RequestParser.MAX_NAME));
  }

  /** The request's cursor, which must be one a step of this same rewind returned. */
  private static RewindCursor cursor(
      RequestFields root, RewindRange range, String destination, RewindPacing pacing) {
    String token = root.text("cursor", RequestParser.MAX_CURSOR);
    if (token == null) {
      return null;
    }
    RewindCursor cursor =
        RewindCursor.decode(token)
            .orElseThrow(
                () ->
                    new InvalidRequestException(
                        "cursor",
                        "is not a cursor this function returned for rewind; pass the nextCursor"
                            + " of the previous rewind response unchanged"));
    if (!cursor.fingerprint().equals(RewindStore.fingerprint(range, destination, pacing))) {
      throw new InvalidRequestException(
          "cursor",
          "belongs to a rewind of another filter, destination or ratePerSecond; send it with the"
              + " request it came from, unchanged");
    }
    return cursor;
  }
}
