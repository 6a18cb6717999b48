package dev.lambdaoutbox.store.config;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;

/**
 * How the functions reach the outbox tables, read once from the environment. {@code OUTBOX_STORE}
 * chooses:
 *
 * <ul>
 *   <li>{@code jdbc} (the default): a JDBC connection ({@link DatabaseSettings});
 *   <li>{@code data-api}: the RDS Data API, for Aurora without a VPC ({@link DataApiSettings}).
 * </ul>
 */
public sealed interface StoreSettings permits DatabaseSettings, DataApiSettings {
  String STORE = "OUTBOX_STORE";
  String TABLE_PREFIX = "OUTBOX_TABLE_PREFIX";

  SqlDialect dialect();

  OutboxTables tables();

  static StoreSettings fromEnvironment(EnvironmentReader env) {
    String store = env.string(STORE, "jdbc");
    return switch (store) {
      case "jdbc" -> DatabaseSettings.fromEnvironment(env);
      case "data-api" -> DataApiSettings.fromEnvironment(env);
      default ->
          throw new ConfigurationException(
              STORE, "'" + store + "' is not a known store; use 'jdbc' or 'data-api'");
    };
  }

  /** {@code OUTBOX_TABLE_PREFIX}, validated. */
  static OutboxTables tables(EnvironmentReader env) {
    try {
      return OutboxTables.withPrefix(env.string(TABLE_PREFIX, ""));
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(TABLE_PREFIX, e.getMessage(), e);
    }
  }
}
