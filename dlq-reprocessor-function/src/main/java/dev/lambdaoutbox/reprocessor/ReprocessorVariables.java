package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.store.config.DatabaseVariables;
import dev.lambdaoutbox.store.config.Setting;
import dev.lambdaoutbox.store.config.SharedVariables;
import java.util.ArrayList;
import java.util.List;

/**
 * The reprocessor's settings, declared once: how many rows one transaction moves, where operators
 * may send events by hand, and the region a queue URL without one is in. {@link
 * ReprocessorConfig#fromEnvironment} reads and validates them; the configuration reference
 * (docs/configuration.md) is generated from them. The database's and the shared ones are {@link
 * DatabaseVariables} and {@link SharedVariables}.
 */
public final class ReprocessorVariables {
  public static final Setting BATCH_SIZE =
      Setting.number("OUTBOX_REPLAY_BATCH_SIZE", Setting.Type.INTEGER, 100, 1, 500)
          .meaning(
              "rows per transaction in a replay, discard, retarget or dead-lettering of waiting"
                  + " rows");

  public static final Setting REPLAY_DESTINATIONS =
      Setting.text(
              "OUTBOX_REPLAY_DESTINATIONS",
              "",
              "comma-separated topic and queue ARNs, `*` and `?` as in IAM")
          .parameter("ReplayDestinations")
          .meaning(
              "where an operator may send events instead of their own destination (a replay's or"
                  + " retarget's `destination`, checked to exist first); empty: what the poller may"
                  + " publish to (the created topic, `PublishTopicArns`, `PublishQueueArns`); the"
                  + " reprocessor may read only those ARNs' attributes, and the poller may publish"
                  + " to those of `ReplayDestinations`, where replayed events go"
                  + " ([waiting-rows.md](waiting-rows.md))");

  public static final Setting AWS_REGION =
      Setting.text("AWS_REGION", null, "an AWS region")
          .meaning(
              "set by Lambda: the region a queue URL is taken to be in, when checked against"
                  + " `OUTBOX_REPLAY_DESTINATIONS`, if its host names none");

  /** The reprocessor's own service name, the metrics' {@code Service} dimension when unset. */
  public static final Setting SERVICE_NAME =
      SharedVariables.SERVICE_NAME.withDefault("outbox-dlq-reprocessor");

  private ReprocessorVariables() {}

  /** Every variable the reprocessor reads: the database's, the shared ones, then its own. */
  public static List<Setting> all() {
    List<Setting> all = new ArrayList<>(DatabaseVariables.all());
    for (Setting shared : SharedVariables.all()) {
      all.add(shared.name().equals(SERVICE_NAME.name()) ? SERVICE_NAME : shared);
    }
    all.addAll(List.of(BATCH_SIZE, REPLAY_DESTINATIONS, AWS_REGION));
    return List.copyOf(all);
  }
}
