/**
 * How the reprocessor reads requests, runs them against the dead-letter store and writes reports.
 * Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.reprocessor.internal;
