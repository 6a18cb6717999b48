/**
 * The values the stores take and return (claims, outcomes, the backlog, dead letters, audit
 * entries, waiting rows, rewinds), shared by every layer of the store: records and enums, no SQL.
 */
package dev.lambdaoutbox.store.model;
