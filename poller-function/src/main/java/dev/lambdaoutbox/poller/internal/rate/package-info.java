/**
 * How fast the poller sends to each destination: a cap, lowered while the destination throttles and
 * raised again while it does not, and the schedule of batch calls that keeps to it. Internal: it
 * may change at any time, in any release, without notice; use
 * dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.rate;
