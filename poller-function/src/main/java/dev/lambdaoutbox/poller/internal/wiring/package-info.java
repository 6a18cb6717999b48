/**
 * The poller's composition root: its object graph built once from its configuration, the AWS
 * clients, and the SnapStart priming hook. Internal: it may change at any time, in any release,
 * without notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.wiring;
