/**
 * Running a validated request: who asked (for the audit), the destination an operator names checked
 * first, and the store calls each action makes. Internal: it may change at any time, in any
 * release, without notice.
 */
package dev.lambdaoutbox.reprocessor.internal.action;
