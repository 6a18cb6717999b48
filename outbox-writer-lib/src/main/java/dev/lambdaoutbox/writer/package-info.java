/**
 * The outbox writer library's public API: {@link dev.lambdaoutbox.writer.OutboxWriter} appends
 * events in the caller's transaction, {@link dev.lambdaoutbox.writer.Inbox} and {@link
 * dev.lambdaoutbox.writer.InboxPurge} de-duplicate consumed messages, {@link
 * dev.lambdaoutbox.writer.OutboxSchema} creates the tables.
 *
 * <p>Public API under semantic versioning: what this package declares changes incompatibly only in
 * a major release (a minor one while the version is 0.x), and the build checks that against the
 * previous release. {@code dev.lambdaoutbox.writer.internal} is not API.
 */
package dev.lambdaoutbox.writer;
