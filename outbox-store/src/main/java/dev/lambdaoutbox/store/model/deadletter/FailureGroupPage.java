package dev.lambdaoutbox.store.model.deadletter;

import java.util.List;

/**
 * One page of failure groups, in fingerprint order.
 *
 * @param next the fingerprint to list after for the next page; null on the last
 * @param backfilled dead letters from before fingerprints this listing gave theirs
 * @param unfingerprinted dead letters still without one, counted up to {@link DeadLetter#COUNT_CAP}
 *     + 1: not in any group of this page until a later listing
 */
public record FailureGroupPage(
    List<FailureGroup> groups, String next, int backfilled, long unfingerprinted) {
  public FailureGroupPage {
    groups = List.copyOf(groups);
  }
}
