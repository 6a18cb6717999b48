package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Events committed the way an application commits them: appended with {@link OutboxWriter} in the
 * application's own transactions, a few per transaction.
 */
public final class CommittedEvents {
  private CommittedEvents() {}

  /**
   * Commits {@code count} {@code order.created} events into {@code tables}, {@code perTransaction}
   * to a transaction; returns their event ids in commit order.
   */
  public static List<String> write(
      TestDatabase db, OutboxTables tables, int count, int perTransaction) {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<String> ids = new ArrayList<>(count);
    db.jdbi()
        .useHandle(
            handle -> {
              for (int first = 0; first < count; first += perTransaction) {
                int end = Math.min(count, first + perTransaction);
                int from = first;
                handle.useTransaction(
                    tx -> {
                      for (int i = from; i < end; i++) {
                        OutboxEvent event =
                            OutboxEvent.builder()
                                .aggregateType("order")
                                .aggregateId("order-" + i)
                                .eventType("order.created")
                                .payload("{\"order\":" + i + ",\"lines\":[\"a\",\"b\"]}")
                                .build();
                        writer.append(tx, event);
                        ids.add(event.id().toString());
                      }
                    });
              }
            });
    return ids;
  }
}
