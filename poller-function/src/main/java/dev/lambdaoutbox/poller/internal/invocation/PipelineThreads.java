package dev.lambdaoutbox.poller.internal.invocation;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The two threads a pipelining poller works on besides the invocation's ({@link Pipeline}): one
 * that claims, one that records outcomes, each running its tasks one at a time, in order. Built
 * once per poller; a thread ends after a minute unused and is started again on demand, so an idle
 * container holds none.
 */
public final class PipelineThreads implements AutoCloseable {
  private final ExecutorService claims = singleThread("outbox-claim");
  private final ExecutorService records = singleThread("outbox-record");

  ExecutorService claims() {
    return claims;
  }

  ExecutorService records() {
    return records;
  }

  @Override
  public void close() {
    claims.shutdown();
    records.shutdown();
  }

  private static ExecutorService singleThread(String name) {
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            1,
            1,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, name);
              thread.setDaemon(true);
              return thread;
            });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }
}
