/**
 * The outbox in Spring-managed transactions: {@link dev.lambdaoutbox.spring.TransactionalOutbox}
 * appends events in the transaction Spring holds on the application's {@code DataSource} and wakes
 * the poller after it commits; {@link dev.lambdaoutbox.spring.OutboxAutoConfiguration} builds it
 * from {@code lambda-outbox.*} properties ({@link dev.lambdaoutbox.spring.OutboxProperties});
 * {@link dev.lambdaoutbox.spring.OutboxMeters} reports the writer, the waker and the SQS consumer
 * to Micrometer.
 *
 * <p>Public API under semantic versioning, as {@code dev.lambdaoutbox.writer} is.
 */
package dev.lambdaoutbox.spring;
