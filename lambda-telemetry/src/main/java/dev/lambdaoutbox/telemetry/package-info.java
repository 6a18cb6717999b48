/**
 * Structured JSON logging and CloudWatch Embedded Metric Format output for the Lambda functions.
 */
package dev.lambdaoutbox.telemetry;
