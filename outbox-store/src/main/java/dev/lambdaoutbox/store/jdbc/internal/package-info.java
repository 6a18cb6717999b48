/**
 * Implementation details of the JDBC outbox store: the SQL per dialect and the steps that run it.
 * Nothing here is API: it may change at any time, in any release, without notice.
 */
package dev.lambdaoutbox.store.jdbc.internal;
