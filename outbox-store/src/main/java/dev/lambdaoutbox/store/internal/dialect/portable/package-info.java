/**
 * The statements PostgreSQL and MySQL run alike, written once as text blocks in the dialect's time
 * syntax ({@link dev.lambdaoutbox.store.internal.dialect.portable.Syntax}, filled in by {@link
 * dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate}): the backlog, destination health,
 * parked keys' release, waiting rows, the reprocessor's reads and the audit rows; and {@link
 * dev.lambdaoutbox.store.internal.dialect.portable.PortableSql}, the base of both dialects' homes.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.internal.dialect.portable;
