package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.StatementException;
import dev.lambdaoutbox.store.sql.internal.NamedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Statements on one JDBC connection, in the transaction the executor opened: named parameters are
 * translated to {@code ?} ({@link NamedSql}) and bound by type ({@link JdbcBinder}); every column
 * is read as the text the driver gives ({@link ResultSet#getString}).
 */
public final class JdbcSession implements SqlSession {
  private final Connection connection;
  private final JdbcBinder binder;
  private final long maxResultBytes;
  private int statementsRun;

  public JdbcSession(Connection connection, JdbcBinder binder, long maxResultBytes) {
    this.connection = connection;
    this.binder = binder;
    this.maxResultBytes = maxResultBytes;
  }

  @Override
  public long maxResultBytes() {
    return maxResultBytes;
  }

  /** Whether a statement of this session has run to completion (and so may have changed rows). */
  public boolean ranAnything() {
    return statementsRun > 0;
  }

  @Override
  public List<Row> query(String sql, Params params) {
    NamedSql named = NamedSql.of(sql);
    try (PreparedStatement ps = connection.prepareStatement(named.positional())) {
      bind(ps, named, params);
      try (ResultSet rs = ps.executeQuery()) {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<String> names = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
          names.add(md.getColumnLabel(i));
        }
        Row.Columns columns = new Row.Columns(names);
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
          String[] values = new String[n];
          for (int i = 0; i < n; i++) {
            values[i] = rs.getString(i + 1);
          }
          rows.add(columns.row(values));
        }
        statementsRun++;
        return rows;
      }
    } catch (SQLException e) {
      throw refused(e, sql);
    }
  }

  @Override
  public int update(String sql, Params params) {
    NamedSql named = NamedSql.of(sql);
    try (PreparedStatement ps = connection.prepareStatement(named.positional())) {
      bind(ps, named, params);
      int changed = ps.executeUpdate();
      statementsRun++;
      return changed;
    } catch (SQLException e) {
      throw refused(e, sql);
    }
  }

  @Override
  public void batch(String sql, List<Params> parameterSets) {
    if (parameterSets.isEmpty()) {
      return;
    }
    NamedSql named = NamedSql.of(sql);
    try (PreparedStatement ps = connection.prepareStatement(named.positional())) {
      for (Params params : parameterSets) {
        bind(ps, named, params);
        ps.addBatch();
      }
      ps.executeBatch();
      statementsRun++;
    } catch (SQLException e) {
      throw refused(e, sql);
    }
  }

  private void bind(PreparedStatement ps, NamedSql named, Params params) throws SQLException {
    List<String> names = named.names();
    for (int i = 0; i < names.size(); i++) {
      binder.bind(ps, i + 1, params.get(names.get(i)));
    }
  }

  /**
   * The failure of {@code sql}; a refused privilege told with what the statement needs, in an
   * exception of the same SQLState and error code that the executor passes on instead.
   */
  private static StatementException refused(SQLException e, String sql) {
    SQLException first = e;
    // A batch reports the statement's own failure as the next exception.
    if (e.getNextException() != null && e.getSQLState() == null) {
      first = e.getNextException();
    }
    if (SqlErrors.isDuplicateKey(e) || SqlErrors.isDuplicateKey(first)) {
      return new DuplicateKeyException(first.getMessage(), e);
    }
    SQLException explained = PermissionDenied.explained(first, sql);
    return new StatementException(explained.getMessage(), explained == first ? e : explained);
  }
}
