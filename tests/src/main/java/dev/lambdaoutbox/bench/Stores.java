package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.CredentialsSource;
import dev.lambdaoutbox.store.config.DatabaseCredentials;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.ExplainSql;
import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.testing.TestDatabase;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;

/** Builds the JDBC store's parts for a test database, as a poller's start-up would. */
public final class Stores {
  private Stores() {}

  public static DatabaseSettings settings(TestDatabase db, OutboxTables tables) {
    return new DatabaseSettings(
        db.jdbcUrl(),
        db.dialect(),
        Optional.empty(),
        Optional.of(db.user()),
        Optional.of(db.password()),
        tables);
  }

  public static JdbcConnectionProvider connections(TestDatabase db, OutboxTables tables) {
    return connections(db, tables, ConnectionLimits.defaults());
  }

  public static JdbcConnectionProvider connections(
      TestDatabase db, OutboxTables tables, ConnectionLimits limits) {
    return JdbcConnectionProvider.create(
        settings(db, tables),
        CredentialsSource.of(new DatabaseCredentials(db.user(), db.password())),
        limits);
  }

  /** A poller's environment for {@code tables} in {@code db}: its JDBC URL, user and prefix. */
  public static Map<String, String> pollerEnvironment(TestDatabase db, OutboxTables tables) {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    return env;
  }

  /**
   * The store a poller of {@code config} runs over {@code connections}, as its wiring builds it:
   * outcomes recorded on a second connection when it pipelines.
   */
  public static OutboxStore pollerStore(
      JdbcConnectionProvider connections, OutboxTables tables, PollerConfig config) {
    OutboxStore.Builder store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables);
    if (config.publishing().pipeline()) {
      store.completionsOnSecondConnection();
    }
    return store.build();
  }

  /**
   * The database's plan for the claim's first statement at {@code now}, on a connection of its own
   * (see {@link ExplainSql#explainClaim}).
   */
  public static String explainClaim(TestDatabase db, OutboxTables tables, Instant now, int limit) {
    return explain(db, tables, "explain the claim", (d, s) -> d.explainClaim(s, now, limit));
  }

  /**
   * The database's plan for the ordered claim's key walk at {@code now}, visiting {@code keys}
   * aggregates after {@code after} (from the first when null; see {@link
   * ExplainSql#explainWalkKeys}).
   */
  public static String explainWalkKeys(
      TestDatabase db, OutboxTables tables, KeyHead.Key after, Instant now, int keys) {
    return explain(
        db, tables, "explain the key walk", (d, s) -> d.explainWalkKeys(s, after, now, keys));
  }

  /**
   * The database's plan for locking the ordered claim's {@code heads} at {@code now} (see {@link
   * ExplainSql#explainClaimHeads}).
   */
  public static String explainClaimHeads(
      TestDatabase db, OutboxTables tables, List<String> heads, Instant now) {
    return explain(
        db, tables, "explain the ordered claim", (d, s) -> d.explainClaimHeads(s, heads, now));
  }

  /**
   * The database's plan for finding the rows behind {@code heads} that back off (see {@link
   * ExplainSql#explainHoldBehind}).
   */
  public static String explainHoldBehind(
      TestDatabase db, OutboxTables tables, Collection<UUID> heads) {
    return explain(db, tables, "explain holding back", (d, s) -> d.explainHoldBehind(s, heads));
  }

  /**
   * The database's plan for holding back, after a short ordered claim of {@code limit} at {@code
   * now}, the rows due before their waiting heads (see {@link
   * ExplainSql#explainHoldBehindWaitingHeads}).
   */
  public static String explainHoldBehindWaitingHeads(
      TestDatabase db, OutboxTables tables, Instant now, int limit) {
    return explain(
        db,
        tables,
        "explain holding back in the window",
        (d, s) -> d.explainHoldBehindWaitingHeads(s, now, limit));
  }

  /**
   * The database's plan for the backlog statement at {@code now} (see {@link
   * ExplainSql#explainBacklog}).
   */
  public static String explainBacklog(TestDatabase db, OutboxTables tables, Instant now) {
    return explain(db, tables, "explain the backlog", (d, s) -> d.explainBacklog(s, now));
  }

  /**
   * The database's plans for the reprocessor's count and list of the rows waiting for their time at
   * {@code now} (see {@link ExplainSql#explainWaitingForTime}).
   */
  public static String explainWaitingForTime(TestDatabase db, OutboxTables tables, Instant now) {
    return explain(
        db,
        tables,
        "explain the rows waiting for their time",
        (d, s) -> d.explainWaitingForTime(s, now));
  }

  /**
   * The database's plan for purging sent rows sent before {@code cutoff} (see {@link
   * ExplainSql#explainPurgeSent}).
   */
  public static String explainPurgeSent(
      TestDatabase db, OutboxTables tables, Instant cutoff, int limit) {
    return explain(db, tables, "explain the purge", (d, s) -> d.explainPurgeSent(s, cutoff, limit));
  }

  /**
   * The database's plan for purging idempotency keys first seen before {@code cutoff} (see {@link
   * ExplainSql#explainPurgeIdempotencyKeys}).
   */
  public static String explainPurgeIdempotencyKeys(
      TestDatabase db, OutboxTables tables, Instant cutoff, int limit) {
    return explain(
        db,
        tables,
        "explain the key purge",
        (d, s) -> d.explainPurgeIdempotencyKeys(s, cutoff, limit));
  }

  /** Runs {@code explain} with the dialect of {@code db}, on a connection of its own. */
  private static String explain(
      TestDatabase db,
      OutboxTables tables,
      String what,
      BiFunction<ExplainSql, SqlSession, String> explain) {
    try (JdbcConnectionProvider connections = connections(db, tables)) {
      ExplainSql dialect = StoreSql.explain(db.dialect(), tables);
      return JdbcExecutor.of(connections).inTransaction(what, s -> explain.apply(dialect, s));
    }
  }
}
