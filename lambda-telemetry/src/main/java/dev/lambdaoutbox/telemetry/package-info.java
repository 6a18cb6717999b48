/**
 * Structured JSON logging and CloudWatch Embedded Metric Format output for the Lambda functions.
 *
 * <p>Published because {@code outbox-sqs-consumer} depends on it. Public API under semantic
 * versioning: what this package declares changes incompatibly only in a major release (a minor one
 * while the version is 0.x), and the build checks that against the previous release.
 */
package dev.lambdaoutbox.telemetry;
