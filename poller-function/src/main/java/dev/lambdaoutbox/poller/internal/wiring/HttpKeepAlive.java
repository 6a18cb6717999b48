package dev.lambdaoutbox.poller.internal.wiring;

/**
 * How many idle connections per host the JDK's HTTP client keeps for reuse (the SDK's URL
 * connection client is built on it): {@value #PROPERTY}, 5 unless set. With more batch calls in
 * flight than that, each wave of calls returns more connections than the cache keeps, so the next
 * wave opens the rest again: against AWS, a TCP and TLS handshake per call above 5, on every wave.
 * The JDK reads the property once, when it first caches a connection, so it is raised before the
 * poller's first call.
 */
final class HttpKeepAlive {
  /** The JDK's system property. */
  static final String PROPERTY = "http.maxConnections";

  /** The JDK's default when the property is not set. */
  static final int JDK_DEFAULT = 5;

  private HttpKeepAlive() {}

  /**
   * Lets the JDK keep {@code connections} idle connections per host, unless the property is set
   * already (by the user, e.g. in {@code JAVA_TOOL_OPTIONS}: theirs stands) or the JDK's default is
   * enough.
   */
  static void keepAtLeast(int connections) {
    if (connections > JDK_DEFAULT && System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, Integer.toString(connections));
    }
  }
}
