/**
 * The body of an SNS or SQS message: the payload as written, or a structured CloudEvent carrying
 * it. Internal: it may change at any time, in any release, without notice; use
 * dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.envelope;
