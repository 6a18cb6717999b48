package dev.lambdaoutbox.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An endpoint that goes away and comes back at the same address: a loopback TCP port that, while
 * up, forwards every connection byte for byte to a target, and while down is not listening at all,
 * so that clients get a real "connection refused". Going down also cuts the connections open
 * through it (a client's pooled keep-alive connection dies as in an outage).
 *
 * <pre>{@code
 * try (TcpForwarder endpoint = TcpForwarder.to(aws.endpoint())) {
 *   SnsClient sns = ... .endpointOverride(endpoint.uri()) ...;
 *   endpoint.down();   // connection refused from now on
 *   endpoint.up();     // the real endpoint again, same port
 * }
 * }</pre>
 *
 * <p>With an idle timeout ({@link #to(URI, Duration)}) it also ends every connection that carried
 * no byte either way for that long, with a reset to both sides, as a NAT gateway does to a flow
 * idle for 350 s: "When a connection times out, a NAT gateway returns an RST packet to any
 * resources behind the NAT gateway that attempt to continue the connection"
 * (https://docs.aws.amazon.com/vpc/latest/userguide/nat-gateway-troubleshooting.html), and as
 * Lambda's own network does: "Lambda purges idle connections over time. Attempting to reuse an idle
 * connection when invoking a function will result in a connection error"
 * (https://docs.aws.amazon.com/lambda/latest/dg/best-practices.html). Between a frozen function and
 * its database or AWS endpoint, that is what a long freeze leaves of its pooled connections.
 */
public final class TcpForwarder implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Set<Flow> flows = ConcurrentHashMap.newKeySet();
  private final ExecutorService threads;
  private final Duration idleTimeout;
  private final AtomicInteger cut = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger mostConnections = new AtomicInteger();
  private ServerSocket server;

  /** One client's connection and its upstream twin, and when a byte last went through. */
  private record Flow(Socket client, Socket upstream, AtomicLong lastActive) {}

  private TcpForwarder(InetSocketAddress target, int port, Duration idleTimeout) {
    this.target = target;
    this.port = port;
    this.idleTimeout = idleTimeout;
    AtomicInteger next = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            task -> {
              Thread t = new Thread(task, "tcp-forwarder-" + port + "-" + next.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** A forwarder to {@code target} (an http URI with host and port), up, on a free port. */
  public static TcpForwarder to(URI target) throws IOException {
    return to(target, null);
  }

  /**
   * A forwarder to {@code target} that resets every connection idle for {@code idleTimeout} (null:
   * never), up, on a free port.
   */
  public static TcpForwarder to(URI target, Duration idleTimeout) throws IOException {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    TcpForwarder forwarder =
        new TcpForwarder(
            new InetSocketAddress(target.getHost(), target.getPort()), port, idleTimeout);
    forwarder.up();
    if (idleTimeout != null) {
      forwarder.threads.execute(forwarder::cutIdle);
    }
    return forwarder;
  }

  /** The most client connections it held open at once so far. */
  public int mostConnectionsAtOnce() {
    return mostConnections.get();
  }

  /** Connections reset so far for being idle. */
  public int idleConnectionsCut() {
    return cut.get();
  }

  /** Where clients connect, as {@code host:port} (for a JDBC URL). */
  public String hostAndPort() {
    return "127.0.0.1:" + port;
  }

  private void cutIdle() {
    long limit = idleTimeout.toNanos();
    while (!threads.isShutdown()) {
      for (Flow flow : flows) {
        if (System.nanoTime() - flow.lastActive().get() >= limit) {
          flows.remove(flow);
          reset(flow.client());
          reset(flow.upstream());
          cut.incrementAndGet();
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Closes with a reset (RST), not a FIN: linger on, for no time. */
  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // Already closed: there is nothing to reset.
    }
    closeQuietly(socket);
  }

  /** Where clients connect: {@code http://127.0.0.1:<port>}, the same whether up or down. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Listens again on the same port and forwards. Idempotent. */
  public synchronized void up() throws IOException {
    if (server != null) {
      return;
    }
    ServerSocket listening = new ServerSocket();
    listening.setReuseAddress(true);
    listening.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    server = listening;
    threads.execute(() -> accept(listening));
  }

  /** Stops listening (connection refused from now on) and cuts open connections. Idempotent. */
  public synchronized void down() throws IOException {
    if (server == null) {
      return;
    }
    server.close();
    server = null;
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  public synchronized boolean isUp() {
    return server != null;
  }

  private void accept(ServerSocket listening) {
    while (!listening.isClosed()) {
      Socket client;
      try {
        client = listening.accept();
      } catch (IOException e) {
        return; // closed by down() or close()
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 2_000);
      } catch (IOException e) {
        closeQuietly(client); // the target itself is down: the client sees the connection drop
        closeQuietly(upstream);
        continue;
      }
      open.add(client);
      open.add(upstream);
      Flow flow = new Flow(client, upstream, new AtomicLong(System.nanoTime()));
      if (idleTimeout != null) {
        flows.add(flow);
      }
      mostConnections.accumulateAndGet(connections.incrementAndGet(), Math::max);
      threads.execute(() -> pump(client, upstream, flow));
      threads.execute(() -> pump(upstream, client, flow));
    }
  }

  private void pump(Socket from, Socket to, Flow flow) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        flow.lastActive().set(System.nanoTime());
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // One side went away; the other is closed below, as a proxy would.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      open.remove(from);
      open.remove(to);
      if (from == flow.client()) {
        connections.decrementAndGet(); // once per flow: the client-side pump's end
      }
      flows.remove(flow);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Closing a socket that failed already: nothing left to release.
    }
  }

  @Override
  public void close() throws IOException {
    down();
    threads.shutdownNow();
  }
}
