package dev.lambdaoutbox.store.internal;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableAudit;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableRewind;

/**
 * The statements a rewind runs ({@link dev.lambdaoutbox.store.rewind.RewindStore}): its walk and
 * copies, and its audit rows, in one dialect over one set of tables.
 */
public record RewindSql(PortableRewind rewind, PortableAudit audit) {
  public static RewindSql of(SqlDialect dialect, OutboxTables tables) {
    var sql = StoreSql.implementation(dialect, tables);
    return new RewindSql(sql.rewind(), sql.audit());
  }
}
