/**
 * One invocation's work: the drain loop (OutboxPoller), what each claim's rows go through
 * (ClaimRound), the time budget and the per-round publish gate, and the pipeline that overlaps
 * claiming, publishing and recording. Internal: it may change at any time, in any release, without
 * notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.invocation;
