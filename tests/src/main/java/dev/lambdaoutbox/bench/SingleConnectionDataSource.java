package dev.lambdaoutbox.bench;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that hands out one open connection again and again, as a pool of one would: its
 * {@code close()} keeps the connection open. Gives a library that asks for a connection per
 * transaction the same footing as our store, which keeps one.
 */
final class SingleConnectionDataSource implements DataSource, AutoCloseable {
  private final Connection connection;
  private final Connection handle;

  SingleConnectionDataSource(Connection connection) {
    this.connection = connection;
    this.handle =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("close")) {
                    return null; // back to the "pool"
                  }
                  try {
                    return method.invoke(connection, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }

  @Override
  public Connection getConnection() {
    return handle;
  }

  @Override
  public Connection getConnection(String username, String password) {
    return handle;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
