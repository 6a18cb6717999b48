/**
 * Scale-out: when and how many further invocations a backlog needs, and starting them with Lambda's
 * asynchronous Invoke. Internal: it may change at any time, in any release, without notice; use
 * dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.fanout;
