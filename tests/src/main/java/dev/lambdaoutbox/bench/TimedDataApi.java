package dev.lambdaoutbox.bench;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.rdsdata.model.BatchExecuteStatementRequest;
import software.amazon.awssdk.services.rdsdata.model.BatchExecuteStatementResponse;
import software.amazon.awssdk.services.rdsdata.model.BeginTransactionRequest;
import software.amazon.awssdk.services.rdsdata.model.BeginTransactionResponse;
import software.amazon.awssdk.services.rdsdata.model.CommitTransactionRequest;
import software.amazon.awssdk.services.rdsdata.model.CommitTransactionResponse;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementRequest;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementResponse;
import software.amazon.awssdk.services.rdsdata.model.RollbackTransactionRequest;
import software.amazon.awssdk.services.rdsdata.model.RollbackTransactionResponse;

/** The real Data API client, counting and timing each kind of call as the caller sees it. */
final class TimedDataApi implements RdsDataClient {
  enum Call {
    BEGIN,
    EXECUTE,
    BATCH,
    COMMIT,
    ROLLBACK
  }

  private final RdsDataClient real;
  private final Map<Call, AtomicLong> counts = new EnumMap<>(Call.class);
  private final Map<Call, AtomicLong> nanos = new EnumMap<>(Call.class);

  TimedDataApi(RdsDataClient real) {
    this.real = real;
    for (Call c : Call.values()) {
      counts.put(c, new AtomicLong());
      nanos.put(c, new AtomicLong());
    }
  }

  long count(Call call) {
    return counts.get(call).get();
  }

  double seconds(Call call) {
    return nanos.get(call).get() / 1e9;
  }

  void reset() {
    counts.values().forEach(v -> v.set(0));
    nanos.values().forEach(v -> v.set(0));
  }

  private <T> T timed(Call call, Supplier<T> work) {
    long t = System.nanoTime();
    try {
      return work.get();
    } finally {
      nanos.get(call).addAndGet(System.nanoTime() - t);
      counts.get(call).incrementAndGet();
    }
  }

  @Override
  public BeginTransactionResponse beginTransaction(BeginTransactionRequest r) {
    return timed(Call.BEGIN, () -> real.beginTransaction(r));
  }

  @Override
  public ExecuteStatementResponse executeStatement(ExecuteStatementRequest r) {
    return timed(Call.EXECUTE, () -> real.executeStatement(r));
  }

  @Override
  public BatchExecuteStatementResponse batchExecuteStatement(BatchExecuteStatementRequest r) {
    return timed(Call.BATCH, () -> real.batchExecuteStatement(r));
  }

  @Override
  public CommitTransactionResponse commitTransaction(CommitTransactionRequest r) {
    return timed(Call.COMMIT, () -> real.commitTransaction(r));
  }

  @Override
  public RollbackTransactionResponse rollbackTransaction(RollbackTransactionRequest r) {
    return timed(Call.ROLLBACK, () -> real.rollbackTransaction(r));
  }

  @Override
  public String serviceName() {
    return real.serviceName();
  }

  @Override
  public void close() {
    real.close();
  }
}
