package dev.lambdaoutbox.poller;

import java.util.List;
import java.util.UUID;

/**
 * Told of every publish call an {@link EmbeddedPoller} makes, for a harness that counts, times or
 * stamps them. Called on the poller's threads; must be quick and must not throw.
 */
public interface PublishListener {
  /** The poller is about to publish the messages of these events, in claim order. */
  default void publishing(List<UUID> eventIds) {}

  /** The publish call of these events returned, {@code nanos} after it started. */
  default void published(List<UUID> eventIds, long nanos) {}
}
