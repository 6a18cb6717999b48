/**
 * The stores' statements over the RDS Data API: {@link
 * dev.lambdaoutbox.store.dataapi.DataApiExecutor} runs each piece of work in one Data API
 * transaction ({@code BeginTransaction} ... {@code CommitTransaction}), for Aurora PostgreSQL and
 * Aurora MySQL, with no VPC, driver or connection.
 */
package dev.lambdaoutbox.store.dataapi;
