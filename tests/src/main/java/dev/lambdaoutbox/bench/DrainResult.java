package dev.lambdaoutbox.bench;

/** How fast one way of draining the outbox went. */
record DrainResult(String name, long events, double seconds, String note) {
  double perSecond() {
    return events / seconds;
  }
}
