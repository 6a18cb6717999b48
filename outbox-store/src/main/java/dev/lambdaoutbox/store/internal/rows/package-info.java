/**
 * The outbox, dead-letter and audit rows as the statements read and write them: column lists, rows
 * read into records, values written as parameters (id lists, JSON lists).
 *
 * <p>Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.internal.rows;
