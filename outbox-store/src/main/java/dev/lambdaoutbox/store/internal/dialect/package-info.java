/**
 * The SQL of the outbox tables, as each client sees it: the poller's store ({@link
 * dev.lambdaoutbox.store.internal.dialect.OutboxSql}), destination health ({@link
 * dev.lambdaoutbox.store.internal.dialect.DestinationHealthSql}), the retention purge ({@link
 * dev.lambdaoutbox.store.internal.dialect.PurgeSql}), and the reprocessor's dead letters ({@link
 * dev.lambdaoutbox.store.internal.dialect.DeadLetterSql}) and waiting rows ({@link
 * dev.lambdaoutbox.store.internal.dialect.WaitingRowSql}), all from {@link
 * dev.lambdaoutbox.store.internal.StoreSql#of}. {@link
 * dev.lambdaoutbox.store.internal.dialect.ExplainSql} is the plan tests' seam. The statements
 * themselves are in one package per dialect ({@code postgres}, {@code mysql}) and, where both run
 * the same SQL, {@code portable}, one file per concern; {@code internal.rows} reads rows into
 * records and writes values as parameters.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.internal.dialect;
