/**
 * Implementation details of the JDBC executor: named parameters translated to {@code ?}, values
 * bound per dialect, driver properties and session settings, and how driver errors are classified.
 * Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.jdbc.internal;
