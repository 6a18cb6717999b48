/**
 * Publishing to SNS, SQS and EventBridge: the message built from a row, batches planned within each
 * destination's limits, sent concurrently (FIFO groups in order), and every response entry
 * reconciled into a delivery; the publisher built on first use. Internal: it may change at any
 * time, in any release, without notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.publish;
