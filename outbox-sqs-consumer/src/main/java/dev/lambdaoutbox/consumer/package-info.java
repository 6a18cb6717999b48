/**
 * The SQS consumer's public API: {@link dev.lambdaoutbox.consumer.SqsInboxConsumer} runs each
 * record of an SQS-triggered Lambda's batch through the inbox and reports partial batch failures.
 *
 * <p>Public API under semantic versioning: what this package declares changes incompatibly only in
 * a major release (a minor one while the version is 0.x), and the build checks that against the
 * previous release. {@code dev.lambdaoutbox.consumer.internal} is not API.
 */
package dev.lambdaoutbox.consumer;
