package dev.lambdaoutbox.store.sql;

import java.util.List;

/**
 * Runs statements in the transaction of a {@link SqlExecutor}. Each call is one statement (no
 * multi-statement SQL), with named parameters ({@code :name}, letters and digits) bound from {@link
 * Params}. A statement the database refuses throws a {@link StatementException} (a {@link
 * DuplicateKeyException} for a unique-key violation); the executor rolls the transaction back
 * unless the work catches it.
 */
public interface SqlSession {
  /** Runs a statement that returns rows (a SELECT, or a change with RETURNING). */
  List<Row> query(String sql, Params params);

  /** Runs a statement that changes rows and returns how many it changed. */
  int update(String sql, Params params);

  /**
   * Runs one changing statement once per parameter set, in as few round trips as the carrier
   * allows. How many rows each run changed is not reported (the Data API does not say).
   */
  void batch(String sql, List<Params> parameterSets);

  /**
   * The most bytes of row data one statement may return, or {@link Long#MAX_VALUE} when there is no
   * such limit. The RDS Data API answers at most 1 MiB per call; statements that may return many
   * large rows (a claim, dead letters with their payloads) size themselves by it.
   */
  default long maxResultBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * The most bytes one row of a result may hold, or {@link Long#MAX_VALUE} when there is no such
   * limit. The RDS Data API returns at most 64 KB a row; statements that may return a large payload
   * or headers cut them from such a row and read them in pieces.
   */
  default long maxRowBytes() {
    return Long.MAX_VALUE;
  }
}
