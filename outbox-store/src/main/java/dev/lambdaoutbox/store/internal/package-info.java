/**
 * The statements of one dialect over one set of tables, rendered once and split by the client that
 * runs them ({@link dev.lambdaoutbox.store.internal.StoreSql}, {@link
 * dev.lambdaoutbox.store.internal.RewindSql}); the statements themselves are in {@code
 * internal.dialect}, the rows they read and write in {@code internal.rows}.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.internal;
