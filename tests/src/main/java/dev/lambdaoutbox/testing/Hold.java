package dev.lambdaoutbox.testing;

/** A hold a test puts on something (a schedule, a client's calls); closing it lets go. */
public interface Hold extends AutoCloseable {
  @Override
  void close();
}
