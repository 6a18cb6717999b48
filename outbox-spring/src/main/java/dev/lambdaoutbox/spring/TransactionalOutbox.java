package dev.lambdaoutbox.spring;

import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import dev.lambdaoutbox.writer.TransactionRequiredException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Appends events in the current thread's Spring transaction, on the application's {@link
 * DataSource} (a {@code DataSourceTransactionManager}, {@code JdbcTransactionManager} or a {@code
 * JpaTransactionManager} exposing its connection), so business rows and the outbox's commit as one.
 *
 * <pre>{@code
 * @Transactional
 * public Reservation reserve(String shopId, int guests) {
 *   Reservation r = reservations.insert(shopId, guests);            // JdbcTemplate, JPA, jOOQ
 *   outbox.append(OutboxEvent.builder().aggregateType("reservation").aggregateId(r.id())
 *       .eventType("reservation.created").payload(r).build());   // commits with the reservation
 *   return r;
 * }
 * }</pre>
 *
 * <p>Thread-safe; never begins, commits or rolls back: refuses ({@link
 * TransactionRequiredException}) without a writable Spring transaction on this {@code DataSource}.
 * With a {@link PollerWaker}, each transaction that appended wakes the poller once after commit.
 */
public interface TransactionalOutbox {
  /** An outbox on {@code dataSource} with a default {@link OutboxWriter}, waking no poller. */
  static TransactionalOutbox create(DataSource dataSource) {
    return builder().dataSource(dataSource).build();
  }

  static Builder builder() {
    return new Builder();
  }

  /** Appends one event in the current Spring transaction. */
  void append(OutboxEvent event);

  /** Appends events in the current Spring transaction: all of them, or, on any refusal, none. */
  void appendAll(List<OutboxEvent> events);

  /**
   * Wakes the poller once the current Spring transaction commits, and not if it rolls back; for
   * rows written by other means than {@link #append}, which does this itself. Nothing without a
   * waker.
   *
   * @throws TransactionRequiredException when the thread has no Spring transaction
   */
  void wakeAfterCommit();

  /** How many events were appended, and how many appends were refused or failed. */
  Counts counts();

  /**
   * @param appended events written (their transactions may still roll back)
   * @param refused calls refused: no transaction, an invalid event, a taken idempotency key
   * @param failed calls the database failed
   */
  record Counts(long appended, long refused, long failed) {}

  /** Configures a {@link TransactionalOutbox}; the {@link #dataSource} is required. */
  final class Builder {
    DataSource dataSource;
    OutboxWriter writer;
    PollerWaker waker;

    private Builder() {}

    /**
     * The application's {@code DataSource}: the one its transaction manager manages, as the
     * application's own data access code uses it.
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /** The writer (its tables, payload limit); {@link OutboxWriter#create()} when unset. */
    public Builder writer(OutboxWriter writer) {
      this.writer = Objects.requireNonNull(writer, "writer");
      return this;
    }

    /** Wakes the poller after each transaction that appended commits. Default: none. */
    public Builder waker(PollerWaker waker) {
      this.waker = Objects.requireNonNull(waker, "waker");
      return this;
    }

    /**
     * The outbox.
     *
     * @throws IllegalStateException when no {@link #dataSource} was given
     */
    public TransactionalOutbox build() {
      if (dataSource == null) {
        throw new IllegalStateException(
            "dataSource: is required (the DataSource the application's transactions run on)");
      }
      return new SpringTransactionalOutbox(
          dataSource, writer == null ? OutboxWriter.create() : writer, waker);
    }
  }
}
