/**
 * SQL and JSON details of the dead-letter store. Nothing here is API: it may change at any time, in
 * any release, without notice.
 */
package dev.lambdaoutbox.store.deadletter.internal;
