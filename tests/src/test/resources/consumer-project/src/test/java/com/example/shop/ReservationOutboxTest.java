package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxSchema;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An application's reservation and its event, written in one transaction or not at all. */
class ReservationOutboxTest {
  private final Jdbi jdbi =
      Jdbi.create(
          System.getenv("OUTBOX_JDBC_URL"),
          System.getenv("OUTBOX_DB_USER"),
          System.getenv("OUTBOX_DB_PASSWORD"));
  private final OutboxTables tables =
      OutboxTables.withPrefix("shop_" + UUID.randomUUID().toString().substring(0, 8) + "_");
  private final OutboxWriter outbox = OutboxWriter.builder().tables(tables).build();

  @BeforeEach
  void createTables() {
    OutboxSchema.create(tables).migrate(jdbi);
    jdbi.useHandle(
        h ->
            h.execute(
                "CREATE TABLE " + tables.prefix() + "reservations (id varchar(64) PRIMARY KEY)"));
  }

  @AfterEach
  void dropTables() {
    jdbi.useHandle(
        h -> {
          for (String table :
              new String[] {
                tables.prefix() + "reservations",
                tables.messages(),
                tables.deadLetters(),
                tables.deadLetterAudit(),
                tables.inbox(),
                tables.schemaHistory()
              }) {
            h.execute("DROP TABLE IF EXISTS " + table);
          }
        });
  }

  @Test
  void committedReservation_hasItsEventInTheOutbox() {
    jdbi.useTransaction(
        h -> {
          h.execute("INSERT INTO " + tables.prefix() + "reservations (id) VALUES (?)", "r-1");
          outbox.append(h, reservationCreated("r-1"));
        });

    assertEquals(1, count(tables.prefix() + "reservations"));
    assertEquals(1, count(tables.messages()));
  }

  @Test
  void rolledBackReservation_leavesNoEvent() {
    assertThrows(
        IllegalStateException.class,
        () ->
            jdbi.useTransaction(
                h -> {
                  h.execute(
                      "INSERT INTO " + tables.prefix() + "reservations (id) VALUES (?)", "r-2");
                  outbox.append(h, reservationCreated("r-2"));
                  throw new IllegalStateException("payment declined");
                }));

    assertEquals(0, count(tables.prefix() + "reservations"));
    assertEquals(0, count(tables.messages()));
  }

  private static OutboxEvent reservationCreated(String id) {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId(id)
        .eventType("reservation.created")
        .payload("{\"reservationId\":\"" + id + "\"}")
        .build();
  }

  private long count(String table) {
    return jdbi.withHandle(
        h -> h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one());
  }
}
