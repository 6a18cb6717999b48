package dev.lambdaoutbox.demo;

import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The application: it books reservations, each in one transaction that writes the reservation and
 * appends its event through {@link OutboxWriter}; one in ten is declined at the last moment and
 * rolled back, event and all. Later transactions upgrade, cancel and pay some of the booked ones.
 * It keeps the ids of the events it committed, and of those it rolled back.
 */
final class Bookings {
  static final String CREATED = "reservation.created";
  static final String UPGRADED = "reservation.upgraded";
  static final String CANCELLED = "reservation.cancelled";
  static final String PAID = "reservation.paid";

  private final Handle handle;
  private final DemoTables tables;
  private final OutboxWriter outbox;
  private final List<UUID> committed = new ArrayList<>();
  private final List<UUID> rolledBack = new ArrayList<>();
  private final Map<String, List<UUID>> committedByType = new LinkedHashMap<>();
  private final List<String> booked = new ArrayList<>();

  /** The application's connection: one, kept open, as a service's pool would lend it. */
  Bookings(Handle handle, DemoTables tables) {
    this.handle = handle;
    this.tables = tables;
    // Payloads up to 1 MiB: the poller has a claim-check bucket for what a destination cannot
    // carry.
    this.outbox = OutboxWriter.builder().tables(tables.outbox()).maxPayloadBytes(1 << 20).build();
  }

  /** A payment declined after the reservation was written: the transaction rolls back. */
  private static final class PaymentDeclined extends RuntimeException {
    PaymentDeclined() {
      super("payment declined", null, false, false);
    }
  }

  /** Books {@code count} reservations, one transaction each; every tenth is rolled back. */
  void book(int count) {
    for (int n = 1; n <= count; n++) {
      int i = n;
      String id = String.format("r-%04d", booked.size() + rolledBack.size() + 1);
      boolean declined = i % 10 == 0;
      OutboxEvent event =
          event(id, CREATED, "{\"reservationId\":\"" + id + "\",\"guest\":\"guest-" + i + "\"}");
      try {
        handle.useTransaction(
            h -> {
              h.execute(
                  "INSERT INTO "
                      + tables.reservations()
                      + " (id, guest, nights, status) VALUES (?, ?, ?, 'BOOKED')",
                  id,
                  "guest-" + i,
                  1 + i % 5);
              outbox.append(h, event);
              if (declined) {
                throw new PaymentDeclined();
              }
            });
        booked.add(id);
        committed(event);
      } catch (PaymentDeclined e) {
        rolledBack.add(event.id());
      }
    }
  }

  /**
   * Books one more reservation whose event carries a note of {@code characters} 4-byte UTF-8
   * characters (U+1F3E8, a hotel): over SNS's 256 KiB, it travels through the claim check. Returns
   * the payload's size in UTF-8 bytes.
   */
  int bookLarge(int characters) {
    String id = String.format("r-%04d", booked.size() + rolledBack.size() + 1);
    String payload =
        "{\"reservationId\":\"" + id + "\",\"note\":\"" + "\uD83C\uDFE8".repeat(characters) + "\"}";
    OutboxEvent event = event(id, CREATED, payload);
    handle.useTransaction(
        h -> {
          h.execute(
              "INSERT INTO "
                  + tables.reservations()
                  + " (id, guest, nights, status) VALUES (?, 'a large party', 3, 'BOOKED')",
              id);
          outbox.append(h, event);
        });
    booked.add(id);
    committed(event);
    return payload.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Upgrades every {@code every}-th booked reservation (one more night), one transaction each. */
  int upgrade(int every) {
    return change(every, UPGRADED, "UPDATE %s SET nights = nights + 1 WHERE id = ?");
  }

  /** Cancels every {@code every}-th booked reservation, one transaction each. */
  int cancel(int every) {
    return change(every, CANCELLED, "UPDATE %s SET status = 'CANCELLED' WHERE id = ?");
  }

  /**
   * Records the payment of every {@code every}-th booked reservation, one transaction each. These
   * go to an EventBridge bus, whose entries carry no message attributes: the event id is in the
   * payload, for the consumer's inbox.
   */
  int pay(int every) {
    return change(every, PAID, "UPDATE %s SET status = 'PAID' WHERE id = ?");
  }

  private int change(int every, String eventType, String update) {
    int changed = 0;
    for (int i = every - 1; i < booked.size(); i += every) {
      String id = booked.get(i);
      UUID eventId = UuidV7.generate();
      OutboxEvent event =
          event(id, eventType, "{\"eventId\":\"" + eventId + "\",\"reservationId\":\"" + id + "\"}")
              .toBuilder()
              .id(eventId)
              .build();
      handle.useTransaction(
          (Handle h) -> {
            h.execute(String.format(update, tables.reservations()), id);
            outbox.append(h, event);
          });
      committed(event);
      changed++;
    }
    return changed;
  }

  private void committed(OutboxEvent event) {
    committed.add(event.id());
    committedByType.computeIfAbsent(event.eventType(), t -> new ArrayList<>()).add(event.id());
  }

  private static OutboxEvent event(String reservationId, String eventType, String payload) {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId(reservationId)
        .eventType(eventType)
        .payload(payload)
        .build();
  }

  /** Ids of the events whose transaction committed. */
  List<UUID> committed() {
    return List.copyOf(committed);
  }

  /** Ids of the events whose transaction rolled back. */
  List<UUID> rolledBack() {
    return List.copyOf(rolledBack);
  }

  /** How many events of each type committed, in the order the types first appeared. */
  Map<String, Integer> committedByType() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    committedByType.forEach((type, ids) -> counts.put(type, ids.size()));
    return Collections.unmodifiableMap(counts);
  }

  /** Ids of the committed events of {@code eventType}. */
  List<UUID> committed(String eventType) {
    return List.copyOf(committedByType.getOrDefault(eventType, List.of()));
  }

  /** Reservations booked (committed). */
  int booked() {
    return booked.size();
  }
}
