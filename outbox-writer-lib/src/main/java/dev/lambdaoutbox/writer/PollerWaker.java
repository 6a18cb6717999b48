package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.writer.internal.CoalescingWaker;
import dev.lambdaoutbox.writer.internal.LambdaWakeUpSender;
import dev.lambdaoutbox.writer.internal.WakeUpTarget;
import java.time.Duration;
import java.util.Objects;
import org.jdbi.v3.core.Handle;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Wakes the poller's alias {@code live} (an asynchronous {@code Invoke}) after the application's
 * transaction commits, so an event is published within a fraction of a second, not at the next
 * scheduled run. Build one, once, and share it: it is thread-safe.
 *
 * <pre>{@code
 * PollerWaker waker = PollerWaker.builder().functionName(wakeUpFunctionArn).build();
 * jdbi.useTransaction(handle -> {
 *   outbox.append(handle, event);
 *   waker.afterCommit(handle);   // plain JDBC: waker.afterCommit() after connection.commit()
 * });
 * }</pre>
 *
 * <p>The waker's own thread sends, so a commit never waits for Lambda nor fails with it. A wake-up
 * that cannot be sent is counted and logged; its rows wait for the schedule. Needs {@code
 * software.amazon.awssdk:lambda} and an SDK HTTP client (optional dependencies). docs/writing.md,
 * "Waking the poller after a commit", says how wake-ups are spaced and what the woken run does.
 */
public interface PollerWaker extends AutoCloseable {
  /** The default {@link Builder#interval interval}: at most ten wake-ups a second. */
  Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

  /** The shortest {@link Builder#interval interval} accepted. */
  Duration MIN_INTERVAL = Duration.ofMillis(10);

  /** The longest {@link Builder#interval interval} accepted. */
  Duration MAX_INTERVAL = Duration.ofSeconds(60);

  /**
   * The default {@link Builder#quietPeriod quiet period}: one wake-up per 5 s at most from each
   * application process while commits keep coming.
   */
  Duration DEFAULT_QUIET_PERIOD = Duration.ofSeconds(5);

  /**
   * The longest {@link Builder#quietPeriod quiet period} accepted: the woken run must claim for it
   * and a second more within the poller's shortest timeout (20 s) less its safety margin and start.
   */
  Duration MAX_QUIET_PERIOD = Duration.ofSeconds(10);

  static Builder builder() {
    return new Builder();
  }

  /**
   * Wakes the poller soon: call it after your transaction committed. Never throws. Returns at once,
   * or, {@link Builder#sendBeforeReturning sending before returning}, once the wake-up was sent.
   */
  void afterCommit();

  /**
   * Wakes the poller when the handle's open transaction commits ({@link Handle#afterCommit}), and
   * not if it rolls back.
   *
   * @throws TransactionRequiredException when the handle is not in a transaction: there is no
   *     commit to wait for
   */
  void afterCommit(Handle handle);

  /** How many wake-ups were asked for, sent and failed since the waker was built. */
  Counts counts();

  /** Stops the waker's thread; a wake-up not sent yet is left to the schedule. */
  @Override
  void close();

  /**
   * @param requested calls of {@link #afterCommit()}, and commits of handles given to {@link
   *     #afterCommit(Handle)}
   * @param sent wake-ups Lambda accepted
   * @param failed wake-ups that could not be sent
   */
  record Counts(long requested, long sent, long failed) {}

  /** Configures a {@link PollerWaker}. */
  final class Builder {
    private String functionName;
    private Duration interval = DEFAULT_INTERVAL;
    private Duration quietPeriod = DEFAULT_QUIET_PERIOD;
    private LambdaClient lambdaClient;
    private boolean sendBeforeReturning = System.getenv("AWS_LAMBDA_RUNTIME_API") != null;

    private Builder() {}

    /**
     * The poller's alias {@code live} to wake: the stack's {@code WakeUpFunctionArn} output, or its
     * name or partial ARN with {@code :live}. Required. The stack lets the application invoke that
     * alias only, so the function unqualified, or a version, is refused here.
     *
     * @throws IllegalArgumentException when blank, or not qualified with {@code :live}, saying what
     *     to give instead
     */
    public Builder functionName(String functionName) {
      if (functionName == null || functionName.isBlank()) {
        throw new IllegalArgumentException(
            "functionName: must not be blank; give the poller's alias ARN (the stack's"
                + " WakeUpFunctionArn output)");
      }
      this.functionName = WakeUpTarget.requireAlias(functionName.strip());
      return this;
    }

    /**
     * Whether {@link PollerWaker#afterCommit()} returns only once a wake-up sent after it was
     * answered (at most about 3 s), instead of at once. Needed where the process is frozen as soon
     * as the request is answered: a Lambda function, whose handler returns right after its commit.
     * Default: true exactly when running in Lambda (the runtime's {@code AWS_LAMBDA_RUNTIME_API} is
     * set). Costs the request one {@code Invoke} call (about 10 to 30 ms in a region).
     */
    public Builder sendBeforeReturning(boolean sendBeforeReturning) {
      this.sendBeforeReturning = sendBeforeReturning;
      return this;
    }

    /**
     * The coalescing interval: at most one wake-up is sent per interval, whatever the commit rate.
     * From {@link #MIN_INTERVAL} to {@link #MAX_INTERVAL}; {@link #DEFAULT_INTERVAL} when unset.
     */
    public Builder interval(Duration interval) {
      this.interval = within("interval", interval, MIN_INTERVAL, MAX_INTERVAL);
      return this;
    }

    /**
     * How long after a wake-up Lambda accepted the commits send no other: the run it woke claims
     * every 100 ms until at least a second past this, counted from its start, and publishes them.
     * Longer: fewer invocations while commits keep coming (about one per period per application
     * process), each woken run lasting about this long and a second more even for one commit. Zero:
     * a wake-up after every commit, at most one per {@link #interval interval}. From zero to {@link
     * #MAX_QUIET_PERIOD}; {@link #DEFAULT_QUIET_PERIOD} when unset.
     */
    public Builder quietPeriod(Duration quietPeriod) {
      this.quietPeriod = within("quietPeriod", quietPeriod, Duration.ZERO, MAX_QUIET_PERIOD);
      return this;
    }

    /** {@code value}, refused with its name and range unless from {@code min} to {@code max}. */
    private static Duration within(String name, Duration value, Duration min, Duration max) {
      Objects.requireNonNull(value, name);
      if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
        throw new IllegalArgumentException(
            name
                + ": must be "
                + min.toMillis()
                + " ms to "
                + max.toMillis()
                + " ms, was "
                + value.toMillis()
                + " ms");
      }
      return value;
    }

    /**
     * The Lambda client to invoke with; the waker does not close it. Unset: the waker builds one
     * from the SDK's defaults (region and credentials from the environment), without retries (the
     * next commit's wake-up is the retry) and with a 2-second call timeout, and closes it with
     * itself.
     */
    public Builder lambdaClient(LambdaClient lambdaClient) {
      this.lambdaClient = Objects.requireNonNull(lambdaClient, "lambdaClient");
      return this;
    }

    /**
     * A waker whose thread is running, its target checked: one {@code DryRun} invocation (at most
     * the 2-second call timeout), which builds the client's credentials and connection before the
     * first commit needs them, and one log line, at INFO when Lambda accepted it, at WARNING with
     * what to change when it refused. A refusal does not fail the build: the schedule publishes the
     * rows meanwhile.
     *
     * @throws IllegalArgumentException when no {@link #functionName} was given
     * @throws IllegalStateException when the AWS SDK's Lambda client is not on the classpath
     */
    public PollerWaker build() {
      if (functionName == null) {
        throw new IllegalArgumentException(
            "functionName: not set; give the poller's alias ARN (the stack's WakeUpFunctionArn"
                + " output)");
      }
      LambdaWakeUpSender.requireSdk();
      LambdaWakeUpSender sender =
          lambdaClient == null
              ? LambdaWakeUpSender.withDefaultClient(functionName, quietPeriod)
              : LambdaWakeUpSender.withClient(lambdaClient, functionName, quietPeriod);
      sender.check();
      return new CoalescingWaker(
          sender,
          interval,
          quietPeriod,
          CoalescingWaker.FAILURE_LOG_PERIOD,
          sendBeforeReturning,
          System::nanoTime);
    }
  }
}
