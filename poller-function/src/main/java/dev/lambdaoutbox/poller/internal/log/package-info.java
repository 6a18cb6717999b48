/**
 * The log lines about rows: ERROR exactly once for each dead letter, INFO for retries, and the
 * structured fields of a line. Internal: it may change at any time, in any release, without notice;
 * use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.log;
