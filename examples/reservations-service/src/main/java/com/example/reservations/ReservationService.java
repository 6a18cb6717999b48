package com.example.reservations;

import dev.lambdaoutbox.spring.TransactionalOutbox;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Takes reservations. The reservation row and its {@code reservation.created} event commit in one
 * transaction, or neither does; the poller is woken once the transaction has committed.
 */
@Service
public class ReservationService {
  /** Seats of every shop. */
  static final int SEATS = 20;

  private final JdbcTemplate jdbc;
  private final TransactionalOutbox outbox;

  public ReservationService(JdbcTemplate jdbc, TransactionalOutbox outbox) {
    this.jdbc = jdbc;
    this.outbox = outbox;
  }

  /**
   * Reserves {@code guests} seats at {@code shopId}.
   *
   * @throws ShopFullException when the shop has fewer seats left; nothing is kept, no event is
   *     published and the poller is not woken
   */
  @Transactional
  public Reservation reserve(String shopId, int guests, String traceparent) {
    Reservation reservation = new Reservation(UUID.randomUUID().toString(), shopId, guests);
    jdbc.update(
        "INSERT INTO reservations (id, shop_id, guests) VALUES (?, ?, ?)",
        reservation.id(),
        shopId,
        guests);
    OutboxEvent.Builder event =
        OutboxEvent.builder()
            .aggregateType("reservation")
            .aggregateId(reservation.id())
            .eventType("reservation.created")
            .payload(reservation);
    if (traceparent != null) {
      event.header("traceparent", traceparent);
    }
    outbox.append(event.build());
    // Checked after writing, as a constraint would be: a full shop rolls back the reservation and
    // its event together.
    Integer taken =
        jdbc.queryForObject(
            "SELECT COALESCE(SUM(guests), 0) FROM reservations WHERE shop_id = ?",
            Integer.class,
            shopId);
    if (taken > SEATS) {
      throw new ShopFullException(shopId, SEATS - (taken - guests));
    }
    return reservation;
  }
}
