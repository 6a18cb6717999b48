package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.dataapi.DataApiExecutor;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import dev.lambdaoutbox.store.sql.StatementException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A real executor standing in for the RDS Data API, where no emulator can serve the dialect: its
 * sessions report the Data API's result budget and row limit, so the dialects take their sized
 * paths (sizes first, rows in groups that fit, large columns cut and read in pieces), and it
 * refuses what the Data API refuses, as the test bed's emulator does: a row of more than {@link
 * DataApiExecutor#MAX_ROW_BYTES} as the database sends it (each value's text and a 4-byte length),
 * and a response of more than {@link #MAX_RESPONSE_BYTES} as the Data API would write it in JSON.
 * The MySQL Data API path runs this way against MariaDB, standing in for Aurora MySQL.
 */
public record BudgetedExecutor(SqlExecutor executor, long maxResultBytes, long maxRowBytes)
    implements SqlExecutor {
  /** The Data API's response limit: 1 MiB (Limitations for the Amazon RDS Data API). */
  public static final long MAX_RESPONSE_BYTES = 1024 * 1024;

  /**
   * What the Data API's JSON spends on a column's metadata ({@code includeResultMetadata}), at
   * most, and on one field beside its text: the emulator's, measured.
   */
  static final int COLUMN_METADATA_BYTES = 400;

  static final int FIELD_BYTES = 20;

  /** {@code executor} with the Data API's budget and limits. */
  public static BudgetedExecutor dataApi(SqlExecutor executor) {
    return new BudgetedExecutor(
        executor, DataApiExecutor.RESULT_BUDGET_BYTES, DataApiExecutor.MAX_ROW_BYTES);
  }

  @Override
  public SqlDialect dialect() {
    return executor.dialect();
  }

  @Override
  public <T> T inTransaction(String what, SqlWork<T> work) {
    return executor.inTransaction(
        what, s -> work.run(new Budgeted(s, maxResultBytes, maxRowBytes)));
  }

  @Override
  public SqlExecutor secondConnection() {
    return new BudgetedExecutor(executor.secondConnection(), maxResultBytes, maxRowBytes);
  }

  private record Budgeted(SqlSession session, long maxResultBytes, long maxRowBytes)
      implements SqlSession {
    @Override
    public List<Row> query(String sql, Params params) {
      List<Row> rows = session.query(sql, params);
      long response = 64;
      for (Row row : rows) {
        long bytes = 0;
        for (String value : row.values()) {
          bytes += 4 + (value == null ? 0 : value.getBytes(StandardCharsets.UTF_8).length);
          response += FIELD_BYTES + (value == null ? 0 : json(value));
        }
        if (bytes > maxRowBytes) {
          throw new StatementException(
              "UnsupportedResultException: the database returned a row of "
                  + bytes
                  + " bytes, and the Data API allows "
                  + maxRowBytes
                  + " bytes a row, for: "
                  + sql,
              null);
        }
      }
      if (!rows.isEmpty()) {
        response += (long) COLUMN_METADATA_BYTES * rows.get(0).values().size();
      }
      if (response > MAX_RESPONSE_BYTES) {
        throw new StatementException(
            "UnsupportedResultException: the response would hold "
                + response
                + " bytes, and the Data API answers at most "
                + MAX_RESPONSE_BYTES
                + ", for: "
                + sql,
            null);
      }
      return rows;
    }

    @Override
    public int update(String sql, Params params) {
      return session.update(sql, params);
    }

    @Override
    public void batch(String sql, List<Params> parameterSets) {
      session.batch(sql, parameterSets);
    }

    /** The bytes of {@code text} as a JSON string's content: escaped, in UTF-8. */
    private static long json(String text) {
      long bytes = 0;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r'
            || c == '\t') {
          bytes += 2;
        } else if (c < 0x20) {
          bytes += 6;
        } else if (c < 0x80) {
          bytes += 1;
        } else if (c < 0x800) {
          bytes += 2;
        } else if (Character.isSurrogate(c)) {
          bytes += 2; // half of a 4-byte character
        } else {
          bytes += 3;
        }
      }
      return bytes;
    }
  }
}
