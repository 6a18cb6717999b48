/**
 * Where a row goes: its own destination, the route its event type matches, or the default; and
 * OUTBOX_ROUTES read and checked at start-up. Internal: it may change at any time, in any release,
 * without notice; use dev.lambdaoutbox.poller.PollerHandler.
 */
package dev.lambdaoutbox.poller.internal.route;
