package dev.lambdaoutbox.testing;

import java.time.Duration;
import java.util.Objects;

/**
 * How Lambda handles a function's asynchronous invocations (its event invoke configuration), as
 * "How Lambda handles errors and retries with asynchronous invocation" documents
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html): an event
 * that fails (an error the function returned, a timeout, a crash) runs again up to {@code
 * maximumRetryAttempts} times, {@code firstRetryDelay} after the first attempt and {@code
 * secondRetryDelay} after the second; an event still queued {@code maximumEventAge} after it was
 * sent is discarded, never run.
 *
 * @param maximumRetryAttempts 0 to 2 ({@code MaximumRetryAttempts})
 * @param maximumEventAge 60 s to 6 h in Lambda ({@code MaximumEventAgeInSeconds}); shorter here
 *     only to test the discard
 * @param firstRetryDelay one minute in Lambda; shorter here only to test a retry
 * @param secondRetryDelay two minutes in Lambda; shorter here only to test a retry
 */
public record AsyncInvokeConfig(
    int maximumRetryAttempts,
    Duration maximumEventAge,
    Duration firstRetryDelay,
    Duration secondRetryDelay) {
  /** Lambda's defaults: two retries, one and two minutes apart; events kept for 6 hours. */
  public static final AsyncInvokeConfig AWS_DEFAULT =
      new AsyncInvokeConfig(2, Duration.ofHours(6), Duration.ofMinutes(1), Duration.ofMinutes(2));

  public AsyncInvokeConfig {
    if (maximumRetryAttempts < 0 || maximumRetryAttempts > 2) {
      throw new IllegalArgumentException(
          "maximumRetryAttempts: Lambda takes 0 to 2, was " + maximumRetryAttempts);
    }
    Objects.requireNonNull(maximumEventAge, "maximumEventAge");
    Objects.requireNonNull(firstRetryDelay, "firstRetryDelay");
    Objects.requireNonNull(secondRetryDelay, "secondRetryDelay");
  }

  /** A template's {@code EventInvokeConfig}, Lambda's retry delays. */
  public static AsyncInvokeConfig of(int maximumRetryAttempts, Duration maximumEventAge) {
    return new AsyncInvokeConfig(
        maximumRetryAttempts,
        maximumEventAge,
        AWS_DEFAULT.firstRetryDelay(),
        AWS_DEFAULT.secondRetryDelay());
  }

  /** The delay before retry {@code retry} (1 or 2). */
  Duration retryDelay(int retry) {
    return retry == 1 ? firstRetryDelay : secondRetryDelay;
  }
}
