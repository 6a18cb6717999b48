/**
 * What the store records for each row given what publishing did: published, retried after a
 * jittered backoff, dead-lettered, deferred or released. Internal: it may change at any time, in
 * any release, without notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.outcome;
