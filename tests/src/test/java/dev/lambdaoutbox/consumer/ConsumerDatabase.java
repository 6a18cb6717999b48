package dev.lambdaoutbox.consumer;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.TestDatabase;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * A consuming service's database: its inbox table (under a private prefix) and its business table,
 * a ledger with one row per application of an event and no unique constraint, so an event applied
 * twice would show as two rows.
 */
final class ConsumerDatabase implements AutoCloseable {
  final TestDatabase db;
  final OutboxTables tables;
  final Jdbi jdbi;
  final String ledger;

  ConsumerDatabase(TestDatabase db, String label) {
    this.db = db;
    this.tables = db.createTables(label);
    this.jdbi = db.jdbi();
    this.ledger = tables.prefix() + "ledger";
    jdbi.useHandle(
        h ->
            h.execute(
                "CREATE TABLE "
                    + ledger
                    + " (consumer varchar(64) NOT NULL, event_id varchar(36) NOT NULL,"
                    + " aggregate_id varchar(64) NOT NULL, amount int NOT NULL)"));
  }

  /** The business effect of an event: one ledger row. */
  void apply(Handle handle, String consumer, InboundEvent event) {
    handle.execute(
        "INSERT INTO " + ledger + " (consumer, event_id, aggregate_id, amount) VALUES (?, ?, ?, ?)",
        consumer,
        event.eventId().toString(),
        event.aggregateId(),
        event.payload(Payment.class).amount());
  }

  /** How often each event was applied for {@code consumer}. */
  Map<UUID, Integer> applications(String consumer) {
    Map<UUID, Integer> counts = new HashMap<>();
    jdbi.useHandle(
        h ->
            h.createQuery("SELECT event_id FROM " + ledger + " WHERE consumer = ?")
                .bind(0, consumer)
                .mapTo(String.class)
                .forEach(id -> counts.merge(UUID.fromString(id), 1, Integer::sum)));
    return counts;
  }

  long inboxRows(String consumer) {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT count(*) FROM " + tables.inbox() + " WHERE consumer_name = ?")
                .bind(0, consumer)
                .mapTo(Long.class)
                .one());
  }

  /** The payload the tests' events carry. */
  record Payment(String orderId, int amount) {}

  @Override
  public void close() {
    jdbi.useHandle(h -> h.execute("DROP TABLE IF EXISTS " + ledger));
    db.dropTables(tables);
  }
}
