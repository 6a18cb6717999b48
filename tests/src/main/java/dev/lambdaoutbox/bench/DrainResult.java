package dev.lambdaoutbox.bench;

/** How fast one way of draining the outbox went. */
record DrainResult(String name, long events, double seconds, String note) {
  DrainResult named(String suffix) {
    return new DrainResult(name + " " + suffix, events, seconds, note);
  }

  double perSecond() {
    return events / seconds;
  }
}
