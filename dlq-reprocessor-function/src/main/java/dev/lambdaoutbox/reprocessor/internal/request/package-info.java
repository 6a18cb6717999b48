/**
 * How a request body becomes a validated request: strict JSON, the fields each action takes,
 * filters, ids and cursors; every refusal names the field. Internal: it may change at any time, in
 * any release, without notice.
 */
package dev.lambdaoutbox.reprocessor.internal.request;
