/**
 * The SQL of the outbox tables, as each client sees it: the poller's store ({@link
 * dev.lambdaoutbox.store.dialect.OutboxSql}), destination health ({@link
 * dev.lambdaoutbox.store.dialect.DestinationHealthSql}), the retention purge ({@link
 * dev.lambdaoutbox.store.dialect.PurgeSql}), and the reprocessor's dead letters ({@link
 * dev.lambdaoutbox.store.dialect.DeadLetterSql}) and waiting rows ({@link
 * dev.lambdaoutbox.store.dialect.WaitingRowSql}), all from {@link
 * dev.lambdaoutbox.store.dialect.StoreSql#of}. {@link dev.lambdaoutbox.store.dialect.ExplainSql} is
 * the plan tests' seam. The statements themselves are in one package per dialect ({@code postgres},
 * {@code mysql}) and, where both run the same SQL, {@code portable}, one file per concern; {@code
 * rows} reads rows into records and writes values as parameters.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.dialect;
