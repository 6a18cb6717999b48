package dev.lambdaoutbox.spring;

import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code lambda-outbox.*} properties {@link OutboxAutoConfiguration} reads:
 *
 * <pre>
 * lambda-outbox.table-prefix=shop_
 * lambda-outbox.schema.migrate=true
 * lambda-outbox.waker.function-name=arn:aws:lambda:eu-west-1:123456789012:function:outbox-PollerFunction-AbC:live
 * lambda-outbox.waker.interval=100ms
 * lambda-outbox.waker.quiet-period=5s
 * </pre>
 */
@ConfigurationProperties(prefix = "lambda-outbox")
public class OutboxProperties {
  /**
   * Prefix of every outbox table's name, the same as the poller's TablePrefix: up to 24 letters,
   * digits and underscores, not starting with a digit. Empty for none.
   */
  private String tablePrefix = "";

  /**
   * Largest payload the writer accepts, in UTF-8 bytes; above 262144 (256 KiB) only when the poller
   * has a claim-check bucket.
   */
  private int maxPayloadBytes = OutboxWriter.DEFAULT_MAX_PAYLOAD_BYTES;

  private final Schema schema = new Schema();

  private final Waker waker = new Waker();

  public String getTablePrefix() {
    return tablePrefix;
  }

  public void setTablePrefix(String tablePrefix) {
    this.tablePrefix = tablePrefix;
  }

  public int getMaxPayloadBytes() {
    return maxPayloadBytes;
  }

  public void setMaxPayloadBytes(int maxPayloadBytes) {
    this.maxPayloadBytes = maxPayloadBytes;
  }

  public Schema getSchema() {
    return schema;
  }

  public Waker getWaker() {
    return waker;
  }

  /** The outbox tables. */
  public static class Schema {
    /**
     * Whether to apply the outbox's missing migrations to the DataSource at start-up (idempotent,
     * under a database lock). Off: create the tables with your migration tool.
     */
    private boolean migrate = false;

    public boolean isMigrate() {
      return migrate;
    }

    public void setMigrate(boolean migrate) {
      this.migrate = migrate;
    }
  }

  /** Waking the poller after each commit that appended. */
  public static class Waker {
    /**
     * The poller function to wake after each commit that appended: its name or ARN, best the ARN of
     * its alias live (the stack's WakeUpFunctionArn output). Unset: no wake-ups, the schedule
     * publishes.
     */
    private String functionName;

    /** At most one wake-up per interval, whatever the commit rate: 10ms to 60s. */
    private Duration interval = PollerWaker.DEFAULT_INTERVAL;

    /**
     * After a wake-up, commits send none for this long: the run it woke claims until a second past
     * it and publishes them. 0s to 10s; 0s: a wake-up after every commit.
     */
    private Duration quietPeriod = PollerWaker.DEFAULT_QUIET_PERIOD;

    public String getFunctionName() {
      return functionName;
    }

    public void setFunctionName(String functionName) {
      this.functionName = functionName;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public Duration getQuietPeriod() {
      return quietPeriod;
    }

    public void setQuietPeriod(Duration quietPeriod) {
      this.quietPeriod = quietPeriod;
    }
  }
}
