/**
 * How the poller works inside: routing, batching, publishing, failure classification, backoff and
 * the drain loop. Internal: it may change at any time, without notice; use {@link
 * dev.lambdaoutbox.poller.PollerHandler} and {@link dev.lambdaoutbox.poller.PollerConfig}.
 */
package dev.lambdaoutbox.poller.internal;
