package dev.lambdaoutbox.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

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
 */
public final class TcpForwarder implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final ExecutorService threads;
  private ServerSocket server;

  private TcpForwarder(InetSocketAddress target, int port) {
    this.target = target;
    this.port = port;
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
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    TcpForwarder forwarder =
        new TcpForwarder(new InetSocketAddress(target.getHost(), target.getPort()), port);
    forwarder.up();
    return forwarder;
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
      threads.execute(() -> pump(client, upstream));
      threads.execute(() -> pump(upstream, client));
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
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
