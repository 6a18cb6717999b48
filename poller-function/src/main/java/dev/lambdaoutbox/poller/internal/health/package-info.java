/**
 * Destinations found down: the shared health table read and written, probes at growing intervals,
 * and what an operator does about a misconfigured one. Internal: it may change at any time, in any
 * release, without notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.health;
