package dev.lambdaoutbox.store.dataapi;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.DataApiSettings;
import dev.lambdaoutbox.store.dataapi.internal.DataApiErrors;
import dev.lambdaoutbox.store.dataapi.internal.DataApiErrors.Kind;
import dev.lambdaoutbox.store.dataapi.internal.DataApiSession;
import dev.lambdaoutbox.store.dataapi.internal.DataApiTarget;
import dev.lambdaoutbox.store.model.OutboxStoreException;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlWork;
import dev.lambdaoutbox.store.sql.StatementException;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * Runs the stores' work over the RDS Data API: each piece of work is one Data API transaction
 * ({@code BeginTransaction}, the statements with its id, {@code CommitTransaction}), rolled back
 * ({@code RollbackTransaction}) when the work fails. On failure:
 *
 * <ul>
 *   <li>a deadlock victim (or serialization failure) is run again, up to {@link
 *       SqlExecutor#DEADLOCK_ATTEMPTS} times in all, as over JDBC;
 *   <li>a transient failure (Aurora Serverless resuming from zero capacity, {@code
 *       DatabaseResumingException}; throttling; a 5xx; the network; a lost transaction) rolls the
 *       work back and runs it again after a growing, jittered pause, for at most {@link
 *       Builder#retryTimeout} in all: a waking cluster costs one slow call, not an invocation;
 *   <li>anything else fails at once with an {@link OutboxStoreException} that says what to check; a
 *       failed {@code CommitTransaction} is not retried: its outcome is unknown.
 * </ul>
 *
 * <p>The Data API answers at most 1 MiB per call and 64 KB per row: sessions report {@link
 * #RESULT_BUDGET_BYTES}, by which the statements size their reads ({@code ResultBudget}). The SDK
 * client must not retry by itself (a statement in a transaction could run twice).
 */
public final class DataApiExecutor implements SqlExecutor {
  /**
   * The row data one statement may return: under half the Data API's 1 MiB response limit, as the
   * response is JSON. Escaping at most doubles the text of valid JSON (each quote, backslash, tab,
   * line feed or carriage return takes two bytes), and the rest of the response (the column
   * metadata, each value's field name) takes less than the 128 KiB left over.
   */
  public static final long RESULT_BUDGET_BYTES = 448 * 1024;

  /**
   * The most one row of a result may hold: "The Data API size limit is 64 KB per row in the result
   * set returned by the database" (Limitations for the Amazon RDS Data API), read as 64,000 bytes,
   * as AWS does not say whether its KB is 1,000 or 1,024.
   */
  public static final long MAX_ROW_BYTES = ResultBudget.MAX_ROW_BYTES;

  private final RdsDataClient client;
  private final DataApiTarget target;
  private final Duration retryTimeout;
  private final Duration firstPause;
  private final Duration maxPause;

  private DataApiExecutor(Builder b) {
    this.client = b.client;
    this.target = new DataApiTarget(b.resourceArn, b.secretArn, b.database, b.dialect);
    this.retryTimeout = b.retryTimeout;
    this.firstPause = b.firstPause;
    this.maxPause = b.maxPause;
  }

  /** An executor for the cluster, secret and database of {@code settings}. */
  public static Builder builder(RdsDataClient client, DataApiSettings settings) {
    return new Builder(client)
        .resourceArn(settings.resourceArn())
        .secretArn(settings.secretArn())
        .database(settings.database())
        .dialect(settings.dialect())
        .retryTimeout(settings.retryTimeout());
  }

  public static Builder builder(RdsDataClient client) {
    return new Builder(client);
  }

  @Override
  public SqlDialect dialect() {
    return target.dialect();
  }

  @Override
  public <T> T inTransaction(String what, SqlWork<T> work) {
    Objects.requireNonNull(work, "work");
    long deadline = System.nanoTime() + retryTimeout.toNanos();
    int deadlocks = 0;
    int pauses = 0;
    while (true) {
      String transactionId;
      try {
        transactionId =
            client
                .beginTransaction(
                    b ->
                        b.resourceArn(target.resourceArn())
                            .secretArn(target.secretArn())
                            .database(target.database()))
                .transactionId();
      } catch (SdkException e) {
        Kind kind = DataApiErrors.classify(e);
        if (kind == Kind.TRANSIENT && pause(++pauses, deadline)) {
          continue;
        }
        throw failure(what, e, DataApiErrors.message(e), kind, pauses);
      }
      T result;
      try {
        result =
            work.run(
                new DataApiSession(
                    client, target, transactionId, RESULT_BUDGET_BYTES, MAX_ROW_BYTES));
      } catch (RuntimeException | Error e) {
        rollback(transactionId, e);
        if (e instanceof StatementException s && s.getCause() instanceof SdkException sdk) {
          Kind kind = DataApiErrors.classify(sdk);
          if (kind == Kind.DEADLOCK && ++deadlocks < DEADLOCK_ATTEMPTS) {
            continue;
          }
          if (kind == Kind.TRANSIENT && pause(++pauses, deadline)) {
            continue;
          }
          throw failure(what, sdk, s.getMessage(), kind, pauses);
        }
        throw e; // the work's own failure, not the database's: rolled back, passed on untouched
      }
      try {
        client.commitTransaction(
            b ->
                b.resourceArn(target.resourceArn())
                    .secretArn(target.secretArn())
                    .transactionId(transactionId));
        return result;
      } catch (SdkException e) {
        throw new OutboxStoreException(
            "could not "
                + what
                + ": committing failed ("
                + e.getClass().getSimpleName()
                + ": "
                + DataApiErrors.message(e)
                + "), so what it changed may or may not have been committed",
            e);
      }
    }
  }

  /** Waits before another attempt; false when that would pass the deadline. */
  private boolean pause(int attempt, long deadline) {
    long cap = Math.min(maxPause.toNanos(), firstPause.toNanos() << Math.min(attempt - 1, 20));
    long nanos = cap / 2 + ThreadLocalRandom.current().nextLong(cap / 2 + 1);
    if (System.nanoTime() + nanos > deadline) {
      return false;
    }
    try {
      Thread.sleep(Duration.ofNanos(nanos));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void rollback(String transactionId, Throwable failure) {
    try {
      client.rollbackTransaction(
          b ->
              b.resourceArn(target.resourceArn())
                  .secretArn(target.secretArn())
                  .transactionId(transactionId));
    } catch (SdkException e) {
      // The transaction ends either way: the service rolls back one it cannot finish.
      failure.addSuppressed(e);
    }
  }

  /** {@code message}: the service's, or the statement's as the session told it. */
  private OutboxStoreException failure(
      String what, SdkException e, String message, Kind kind, int pauses) {
    StringBuilder m =
        new StringBuilder("could not ")
            .append(what)
            .append(" (")
            .append(e.getClass().getSimpleName())
            .append("): ")
            .append(message);
    switch (kind) {
      case TRANSIENT ->
          m.append(". Still failing after ")
              .append(pauses)
              .append(" retries in ")
              .append(retryTimeout.toMillis())
              .append(" ms (")
              .append(DataApiSettings.RETRY_TIMEOUT)
              .append("): the cluster may still be resuming, or the Data API throttling");
      case LOGIN_REFUSED ->
          m.append(". Check ")
              .append(DataApiSettings.SECRET_ARN)
              .append(" (")
              .append(target.secretArn())
              .append("): a Secrets Manager secret with the database's username and password");
      case ACCESS_DENIED ->
          m.append(". The function's role needs rds-data:BeginTransaction, ExecuteStatement,")
              .append(" BatchExecuteStatement, CommitTransaction and RollbackTransaction on ")
              .append(target.resourceArn())
              .append(" and secretsmanager:GetSecretValue on ")
              .append(target.secretArn());
      case RESULT_REFUSED ->
          m.append(". The Data API returns at most 64 KB a row and 1 MiB a call; the outbox's")
              .append(" statements size their results to fit, so this one did not: a bug to report")
              .append(" with this message");
      default -> {}
    }
    return new OutboxStoreException(m.toString(), e);
  }

  /** Configures a {@link DataApiExecutor}; not thread-safe. */
  public static final class Builder {
    private final RdsDataClient client;
    private String resourceArn;
    private String secretArn;
    private String database;
    private SqlDialect dialect = SqlDialect.POSTGRESQL;
    private Duration retryTimeout = DataApiSettings.DEFAULT_RETRY_TIMEOUT;
    private Duration firstPause = Duration.ofMillis(200);
    private Duration maxPause = Duration.ofSeconds(5);

    private Builder(RdsDataClient client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    /** The Aurora cluster's ARN. */
    public Builder resourceArn(String resourceArn) {
      this.resourceArn = Objects.requireNonNull(resourceArn, "resourceArn");
      return this;
    }

    /** The Secrets Manager secret holding the database login. */
    public Builder secretArn(String secretArn) {
      this.secretArn = Objects.requireNonNull(secretArn, "secretArn");
      return this;
    }

    /** The database (schema, in MySQL) holding the outbox tables. */
    public Builder database(String database) {
      this.database = Objects.requireNonNull(database, "database");
      return this;
    }

    /** Aurora PostgreSQL (the default) or Aurora MySQL. */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /** How long transient failures are retried, in all; zero retries none. */
    public Builder retryTimeout(Duration retryTimeout) {
      Objects.requireNonNull(retryTimeout, "retryTimeout");
      if (retryTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "retryTimeout: must not be negative, was " + retryTimeout);
      }
      this.retryTimeout = retryTimeout;
      return this;
    }

    /**
     * The pause before the first retry of a transient failure, doubling up to {@code max}; each
     * pause is drawn between half and all of that.
     */
    public Builder pauses(Duration first, Duration max) {
      if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
        throw new IllegalArgumentException(
            "pauses: need 0 < first <= max, was " + first + ", " + max);
      }
      this.firstPause = first;
      this.maxPause = max;
      return this;
    }

    public DataApiExecutor build() {
      Objects.requireNonNull(resourceArn, "resourceArn");
      Objects.requireNonNull(secretArn, "secretArn");
      Objects.requireNonNull(database, "database");
      return new DataApiExecutor(this);
    }
  }
}
