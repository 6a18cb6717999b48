/**
 * Every statement PostgreSQL runs that the portable package does not hold, one file per concern
 * (claims, completions, parking, dead letters, purge, audit), each statement a text block; {@link
 * dev.lambdaoutbox.store.internal.dialect.postgres.PostgresSql} puts them together.
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.internal.dialect.postgres;
