package dev.lambdaoutbox.store.dataapi.internal;

import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.StatementException;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.rdsdata.model.ColumnMetadata;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementResponse;
import software.amazon.awssdk.services.rdsdata.model.Field;
import software.amazon.awssdk.services.rdsdata.model.SqlParameter;

/**
 * Statements in one Data API transaction: each call is one {@code ExecuteStatement} (rows with
 * their column metadata, so they are read by name) or {@code BatchExecuteStatement}, carrying the
 * transaction id.
 */
public final class DataApiSession implements SqlSession {
  /** Parameter sets per {@code BatchExecuteStatement} call, at most. */
  static final int BATCH_SETS = 100;

  /**
   * Parameter text per {@code BatchExecuteStatement} call, at most: a quarter of the Data API's 4
   * MiB request limit, leaving room for JSON escaping and framing.
   */
  static final long BATCH_BYTES = 1024 * 1024;

  private final RdsDataClient client;
  private final DataApiTarget target;
  private final String transactionId;
  private final long maxResultBytes;
  private final long maxRowBytes;

  public DataApiSession(
      RdsDataClient client,
      DataApiTarget target,
      String transactionId,
      long maxResultBytes,
      long maxRowBytes) {
    this.client = client;
    this.target = target;
    this.transactionId = transactionId;
    this.maxResultBytes = maxResultBytes;
    this.maxRowBytes = maxRowBytes;
  }

  @Override
  public List<Row> query(String sql, Params params) {
    ExecuteStatementResponse response = execute(sql, params, true);
    List<String> names = new ArrayList<>();
    for (ColumnMetadata column : response.columnMetadata()) {
      names.add(
          column.label() != null && !column.label().isEmpty() ? column.label() : column.name());
    }
    Row.Columns columns = new Row.Columns(names);
    List<Row> rows = new ArrayList<>(response.records().size());
    for (List<Field> record : response.records()) {
      String[] values = new String[record.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = DataApiValues.text(record.get(i));
      }
      rows.add(columns.row(values));
    }
    return rows;
  }

  @Override
  public int update(String sql, Params params) {
    Long updated = execute(sql, params, false).numberOfRecordsUpdated();
    return updated == null ? 0 : Math.toIntExact(updated);
  }

  /** One call per run of sets that stays within {@link #BATCH_SETS} and {@link #BATCH_BYTES}. */
  @Override
  public void batch(String sql, List<Params> parameterSets) {
    List<List<SqlParameter>> sets = new ArrayList<>();
    long bytes = 0;
    for (Params params : parameterSets) {
      List<SqlParameter> set = DataApiValues.parameters(sql, params, target.dialect());
      long size = DataApiValues.size(set);
      if (!sets.isEmpty() && (sets.size() == BATCH_SETS || bytes + size > BATCH_BYTES)) {
        batchCall(sql, sets);
        sets = new ArrayList<>();
        bytes = 0;
      }
      sets.add(set);
      bytes += size;
    }
    if (!sets.isEmpty()) {
      batchCall(sql, sets);
    }
  }

  private void batchCall(String sql, List<List<SqlParameter>> sets) {
    try {
      client.batchExecuteStatement(
          b ->
              b.resourceArn(target.resourceArn())
                  .secretArn(target.secretArn())
                  .database(target.database())
                  .transactionId(transactionId)
                  .sql(sql)
                  .parameterSets(sets));
    } catch (SdkException e) {
      throw refused(e, sql);
    }
  }

  @Override
  public long maxResultBytes() {
    return maxResultBytes;
  }

  @Override
  public long maxRowBytes() {
    return maxRowBytes;
  }

  private ExecuteStatementResponse execute(String sql, Params params, boolean rows) {
    List<SqlParameter> parameters = DataApiValues.parameters(sql, params, target.dialect());
    try {
      return client.executeStatement(
          b ->
              b.resourceArn(target.resourceArn())
                  .secretArn(target.secretArn())
                  .database(target.database())
                  .transactionId(transactionId)
                  .sql(sql)
                  .parameters(parameters)
                  .includeResultMetadata(rows));
    } catch (SdkException e) {
      throw refused(e, sql);
    }
  }

  /** The failure of {@code sql}; a refused privilege told with what the statement needs. */
  private static StatementException refused(SdkException e, String sql) {
    String message = DataApiErrors.message(e);
    if (DataApiErrors.classify(e) == DataApiErrors.Kind.DUPLICATE_KEY) {
      return new DuplicateKeyException(message, e);
    }
    String denied = PermissionDenied.explain(message, sql);
    return new StatementException(denied == null ? message : denied, e);
  }
}
