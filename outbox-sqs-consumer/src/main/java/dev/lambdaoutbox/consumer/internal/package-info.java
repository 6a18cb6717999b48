/**
 * Implementation details of the SQS consumer. Nothing here is API: it may change at any time, in
 * any release, without notice.
 */
package dev.lambdaoutbox.consumer.internal;
