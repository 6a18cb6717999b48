/**
 * Whose failure a failed publish is, the message's or its destination's, from the error code or
 * exception SNS/SQS gave, and the poller's own error codes. Internal: it may change at any time, in
 * any release, without notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.failure;
