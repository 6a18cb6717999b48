package dev.lambdaoutbox.store.config;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;

/**
 * How the functions reach the outbox tables, read once from the environment: {@code OUTBOX_STORE}
 * chooses a JDBC connection ({@code jdbc}, the default; {@link DatabaseSettings}) or the RDS Data
 * API, for Aurora without a VPC ({@code data-api}; {@link DataApiSettings}). The variables are
 * declared in {@link DatabaseVariables}.
 */
public sealed interface StoreSettings permits DatabaseSettings, DataApiSettings {
  SqlDialect dialect();

  OutboxTables tables();

  static StoreSettings fromEnvironment(EnvironmentReader env) {
    return switch (env.choice(DatabaseVariables.STORE)) {
      case "data-api" -> DataApiSettings.fromEnvironment(env);
      default -> DatabaseSettings.fromEnvironment(env);
    };
  }

  /** {@code OUTBOX_TABLE_PREFIX}, validated. */
  static OutboxTables tables(EnvironmentReader env) {
    try {
      return OutboxTables.withPrefix(env.text(DatabaseVariables.TABLE_PREFIX));
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(DatabaseVariables.TABLE_PREFIX.name(), e.getMessage(), e);
    }
  }
}
