package dev.lambdaoutbox.store.dataapi.internal;

import dev.lambdaoutbox.core.SqlDialect;

/** Where the Data API calls go: the cluster, the secret holding the login, the database. */
public record DataApiTarget(
    String resourceArn, String secretArn, String database, SqlDialect dialect) {}
