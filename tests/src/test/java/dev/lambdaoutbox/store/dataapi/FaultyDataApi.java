package dev.lambdaoutbox.store.dataapi;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
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

/**
 * The real Data API client with failures queued in front of its calls: for the failures the
 * emulator cannot be made to show (Aurora resuming from zero capacity, throttling, access denied),
 * each queued failure is thrown by the next call instead of making it. Every other call goes to the
 * emulator.
 */
final class FaultyDataApi implements RdsDataClient {
  private final RdsDataClient real;
  private final Deque<Supplier<RuntimeException>> beginFailures = new ArrayDeque<>();
  private final Deque<Supplier<RuntimeException>> statementFailures = new ArrayDeque<>();
  final AtomicInteger begins = new AtomicInteger();
  final AtomicInteger rollbacks = new AtomicInteger();

  FaultyDataApi(RdsDataClient real) {
    this.real = real;
  }

  FaultyDataApi failBegin(Supplier<RuntimeException> failure, int times) {
    for (int i = 0; i < times; i++) {
      beginFailures.add(failure);
    }
    return this;
  }

  FaultyDataApi failStatement(Supplier<RuntimeException> failure) {
    statementFailures.add(failure);
    return this;
  }

  @Override
  public synchronized BeginTransactionResponse beginTransaction(BeginTransactionRequest request) {
    begins.incrementAndGet();
    if (!beginFailures.isEmpty()) {
      throw beginFailures.poll().get();
    }
    return real.beginTransaction(request);
  }

  @Override
  public ExecuteStatementResponse executeStatement(ExecuteStatementRequest request) {
    Supplier<RuntimeException> failure;
    synchronized (this) {
      failure = statementFailures.poll();
    }
    if (failure != null) {
      throw failure.get();
    }
    return real.executeStatement(request);
  }

  @Override
  public BatchExecuteStatementResponse batchExecuteStatement(BatchExecuteStatementRequest request) {
    return real.batchExecuteStatement(request);
  }

  @Override
  public CommitTransactionResponse commitTransaction(CommitTransactionRequest request) {
    return real.commitTransaction(request);
  }

  @Override
  public RollbackTransactionResponse rollbackTransaction(RollbackTransactionRequest request) {
    rollbacks.incrementAndGet();
    return real.rollbackTransaction(request);
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
