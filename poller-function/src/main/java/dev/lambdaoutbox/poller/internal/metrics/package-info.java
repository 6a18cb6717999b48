/**
 * The EMF metrics line each invocation writes, and the running counts behind it and behind the
 * invocation's summary. Internal: it may change at any time, in any release, without notice; use
 * dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.metrics;
