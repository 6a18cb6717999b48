/**
 * Every statement MySQL and MariaDB run that the portable package does not hold, one file per
 * concern (claims, completions, parking, dead letters, purge, audit, the locks taken in place of
 * RETURNING), each statement a text block; {@link
 * dev.lambdaoutbox.store.internal.dialect.mysql.MysqlSql} puts them together.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.internal.dialect.mysql;
