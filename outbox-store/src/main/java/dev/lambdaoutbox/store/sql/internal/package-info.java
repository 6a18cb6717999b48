/**
 * Helpers every executor shares, such as finding the named parameters of a statement. Nothing here
 * is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.sql.internal;
