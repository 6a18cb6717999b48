/**
 * Implementation details of the outbox writer library. Nothing here is API: it may change at any
 * time, in any release, without notice.
 */
package dev.lambdaoutbox.writer.internal;
