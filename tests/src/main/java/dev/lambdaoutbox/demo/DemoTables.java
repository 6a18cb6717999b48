package dev.lambdaoutbox.demo;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/**
 * The demo's tables in the test bed's PostgreSQL, all under one prefix of their own ({@code
 * demo_<random>_}), so that runs side by side never meet and a run leaves nothing behind: the
 * outbox tables (migrated by {@link OutboxSchema}, as an application does), the application's
 * {@code reservations}, and the shop's {@code shop_bookings} (the consumer's business table; the
 * inbox is the outbox tables' {@code inbox_processed_messages}).
 */
record DemoTables(TestDatabase db, OutboxTables outbox, Handle handle) {

  static DemoTables create(TestDatabase db, String prefix) throws SQLException {
    DemoTables tables = new DemoTables(db, OutboxTables.withPrefix(prefix), db.jdbi().open());
    try (Connection c = db.open()) {
      OutboxSchema.create(tables.outbox()).migrate(c);
      try (Statement st = c.createStatement()) {
        st.execute(
            "CREATE TABLE "
                + tables.reservations()
                + " (id varchar(64) PRIMARY KEY, guest varchar(128) NOT NULL,"
                + " nights integer NOT NULL, status varchar(16) NOT NULL)");
        st.execute(
            "CREATE TABLE "
                + tables.bookings()
                + " (event_id varchar(36) PRIMARY KEY, reservation_id varchar(64) NOT NULL,"
                + " event_type varchar(64) NOT NULL,"
                + " applied_at timestamptz NOT NULL DEFAULT now())");
      }
    }
    return tables;
  }

  /** The application's business table. */
  String reservations() {
    return outbox.prefix() + "reservations";
  }

  /** The shop's business table, one row per applied event. */
  String bookings() {
    return outbox.prefix() + "shop_bookings";
  }

  /** The migration versions applied, as the schema history records them. */
  List<String> migrations() throws SQLException {
    return handle
        .createQuery("SELECT version FROM " + outbox.schemaHistory() + " ORDER BY installed_at")
        .mapTo(String.class)
        .list();
  }

  /** Outbox rows a poller holds under a lease. */
  Set<UUID> leased() {
    return ids("SELECT id FROM " + outbox.messages() + " WHERE locked_by IS NOT NULL");
  }

  /** Rows still in the outbox. */
  int unpublished() {
    return count("SELECT count(*) FROM " + outbox.messages());
  }

  /** Rows still in the outbox, but for those of {@code eventType}. */
  int unpublishedExcept(String eventType) {
    return handle
        .createQuery("SELECT count(*) FROM " + outbox.messages() + " WHERE event_type <> ?")
        .bind(0, eventType)
        .mapTo(Integer.class)
        .one();
  }

  /** Ids of the rows in the dead-letter table (the events' own ids). */
  Set<UUID> deadLetterIds() {
    return ids("SELECT id FROM " + outbox.deadLetters());
  }

  /** Rows in the dead-letter table. */
  int deadLetters() {
    return count("SELECT count(*) FROM " + outbox.deadLetters());
  }

  /** Event ids of the shop's bookings: every event it applied. */
  Set<UUID> applied() {
    return handle.createQuery("SELECT event_id FROM " + bookings()).mapTo(String.class).stream()
        .map(UUID::fromString)
        .collect(Collectors.toSet());
  }

  private Set<UUID> ids(String sql) {
    return new HashSet<>(handle.createQuery(sql).mapTo(UUID.class).list());
  }

  private int count(String sql) {
    return handle.createQuery(sql).mapTo(Integer.class).one();
  }

  /** Drops every table of the demo, and closes the connection. */
  void drop() throws SQLException {
    handle.close();
    db.dropTables(outbox);
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + reservations());
      st.execute("DROP TABLE IF EXISTS " + bookings());
    }
  }
}
