/**
 * Implementation details of the Data API executor: typed parameters and {@code typeHint}s, result
 * fields read as text, and how Data API errors are classified. Nothing here is API: it may change
 * at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.dataapi.internal;
