/**
 * The SQL of the outbox tables, one home per dialect: {@link
 * dev.lambdaoutbox.store.dialect.PostgresDialect} and {@link
 * dev.lambdaoutbox.store.dialect.MysqlDialect} hold every statement the poller and the reprocessor
 * run, and run the dialect's multi-step operations themselves, on any {@link
 * dev.lambdaoutbox.store.sql.SqlSession} (JDBC or the RDS Data API). The rest of this package is
 * what both share: the statements that differ only in how times are written ({@code
 * PortableDialect}), reading rows into records, filter conditions, lists of values.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.dialect;
