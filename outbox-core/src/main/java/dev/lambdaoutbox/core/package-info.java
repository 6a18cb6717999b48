/**
 * The outbox's table contract and event rules, shared by the writer library, the store and both
 * functions: the tables' names ({@link dev.lambdaoutbox.core.OutboxTables}) and dialects ({@link
 * dev.lambdaoutbox.core.SqlDialect}), what an event's fields and destination must be ({@link
 * dev.lambdaoutbox.core.EventRules}, {@link dev.lambdaoutbox.core.Destinations}), the message an
 * event becomes ({@link dev.lambdaoutbox.core.OutboxMessageAttributes}, {@link
 * dev.lambdaoutbox.core.MessageSize}), event ids ({@link dev.lambdaoutbox.core.UuidV7}), the
 * headers column's JSON ({@link dev.lambdaoutbox.core.JsonSupport}) and what a refused privilege
 * means ({@link dev.lambdaoutbox.core.PermissionDenied}).
 *
 * <p>Public API under semantic versioning, as the writer's: what this package declares changes
 * incompatibly only in a major release (a minor one while the version is 0.x), and the build checks
 * that against the previous release. An application needs it through the writer library, which
 * depends on it.
 */
package dev.lambdaoutbox.core;
