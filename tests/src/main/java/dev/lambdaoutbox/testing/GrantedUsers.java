package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxGrants;
import dev.lambdaoutbox.writer.OutboxRole;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * Database users holding exactly the grants {@link OutboxGrants} makes for one set of outbox tables
 * and nothing else, as an operator creates them: each created, and granted what {@link
 * OutboxGrants#statements} lists, by the tables' owner (the test database's own login). Names are
 * unique per run; {@link #close} drops the users and deletes their secrets.
 */
public final class GrantedUsers implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final TestDatabase owner;
  private final OutboxTables tables;
  private final String schema;
  private final String run = HexFormat.of().formatHex(RANDOM.generateSeed(3));
  private final List<GrantedUser> users = new ArrayList<>();
  private final Map<GrantedUser, String> secrets = new LinkedHashMap<>();
  private SecretsManagerClient secretsManager;

  private GrantedUsers(TestDatabase owner, OutboxTables tables, String schema) {
    this.owner = Objects.requireNonNull(owner, "owner");
    this.tables = Objects.requireNonNull(tables, "tables");
    this.schema = schema;
  }

  /** Users of {@code tables}, which {@code owner} created and owns. */
  public static GrantedUsers of(TestDatabase owner, OutboxTables tables) {
    return new GrantedUsers(owner, tables, null);
  }

  /** Users of {@code tables} in PostgreSQL schema {@code schema}, which {@code owner} owns. */
  public static GrantedUsers inSchema(TestDatabase owner, OutboxTables tables, String schema) {
    return new GrantedUsers(owner, tables, Objects.requireNonNull(schema, "schema"));
  }

  /** A user and its login, with the grants it was given. */
  public record GrantedUser(String name, String password, OutboxGrants grants, TestDatabase db) {
    @Override
    public String toString() { // never print the password
      return name + " (" + grants.roles() + ")";
    }
  }

  /** A new user granted what {@code roles} need: one role, or several for one shared user. */
  public GrantedUser create(OutboxRole... roles) {
    OutboxGrants.Builder builder = OutboxGrants.builder().roles(roles).tables(tables);
    if (schema != null) {
      builder.schema(schema);
    }
    OutboxGrants grants = builder.build();
    String name =
        "og"
            + run
            + "_"
            + users.size()
            + List.of(roles).stream()
                .map(r -> r.label().substring(0, 1))
                .collect(Collectors.joining());
    String password = HexFormat.of().formatHex(RANDOM.generateSeed(12));
    List<String> statements = new ArrayList<>();
    statements.add(
        owner.dialect() == SqlDialect.POSTGRESQL
            ? "CREATE ROLE " + name + " LOGIN PASSWORD '" + password + "'"
            : "CREATE USER '" + name + "'@'%' IDENTIFIED BY '" + password + "'");
    statements.addAll(grants.statements(owner.dialect(), name));
    GrantedUser user = new GrantedUser(name, password, grants, owner.as(name, password));
    users.add(user);
    execute(statements);
    return user;
  }

  /** Takes {@code privilege} on {@code table} (as the grants name it) from {@code user}. */
  public void revoke(GrantedUser user, String table, Privilege privilege) {
    execute(List.of("REVOKE " + privilege + on(table) + " FROM " + grantee(user)));
  }

  /** Gives {@code privilege} on {@code table} back to {@code user}. */
  public void grant(GrantedUser user, String table, Privilege privilege) {
    execute(List.of("GRANT " + privilege + on(table) + " TO " + grantee(user)));
  }

  /** Takes the schema's {@code USAGE} from {@code user} (PostgreSQL). */
  public void revokeUsage(GrantedUser user) {
    execute(List.of("REVOKE USAGE ON SCHEMA " + schemaName() + " FROM " + user.name()));
  }

  /** Gives the schema's {@code USAGE} back to {@code user} (PostgreSQL). */
  public void grantUsage(GrantedUser user) {
    execute(List.of("GRANT USAGE ON SCHEMA " + schemaName() + " TO " + user.name()));
  }

  /**
   * The ARN of a Secrets Manager secret (on the test bed's endpoint) holding {@code user}'s login,
   * as the functions read it; created on first use.
   */
  public synchronized String secretArn(GrantedUser user) {
    return secrets.computeIfAbsent(
        user,
        u ->
            secretsManager()
                .createSecret(
                    r ->
                        r.name("outbox-grants-" + u.name())
                            .secretString(
                                "{\"username\":\""
                                    + u.name()
                                    + "\",\"password\":\""
                                    + u.password()
                                    + "\"}"))
                .arn());
  }

  private SecretsManagerClient secretsManager() {
    if (secretsManager == null) {
      secretsManager =
          TestEndpoints.aws()
              .configure(SecretsManagerClient.builder())
              .httpClientBuilder(UrlConnectionHttpClient.builder())
              .build();
    }
    return secretsManager;
  }

  private String on(String table) {
    return (owner.dialect() == SqlDialect.POSTGRESQL ? " ON TABLE " : " ON ") + table;
  }

  private String grantee(GrantedUser user) {
    return owner.dialect() == SqlDialect.POSTGRESQL ? user.name() : "'" + user.name() + "'@'%'";
  }

  private String schemaName() {
    return schema == null ? "public" : schema;
  }

  private void execute(List<String> statements) {
    try (Connection c = owner.open();
        Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not set up granted users in " + owner, e);
    }
  }

  /**
   * Drops the users (on PostgreSQL their privileges first: a role that holds any cannot be dropped)
   * and deletes their secrets.
   */
  @Override
  public synchronized void close() {
    List<String> failures = new ArrayList<>();
    for (GrantedUser user : users) {
      List<String> statements = new ArrayList<>();
      if (owner.dialect() == SqlDialect.POSTGRESQL) {
        for (OutboxGrants.TableGrant grant : user.grants().grants(SqlDialect.POSTGRESQL)) {
          statements.add("REVOKE ALL ON TABLE " + grant.table() + " FROM " + user.name());
        }
        statements.add("REVOKE USAGE ON SCHEMA " + schemaName() + " FROM " + user.name());
        statements.add("DROP ROLE IF EXISTS " + user.name());
      } else {
        statements.add("DROP USER IF EXISTS '" + user.name() + "'@'%'");
      }
      try (Connection c = owner.open();
          Statement st = c.createStatement()) {
        for (String sql : statements) {
          try {
            st.execute(sql);
          } catch (SQLException e) {
            // A table or schema dropped already took the user's privileges on it with it.
            if (sql.startsWith("DROP")) {
              throw e;
            }
          }
        }
      } catch (SQLException e) {
        failures.add(user.name() + ": " + e.getMessage());
      }
    }
    users.clear();
    for (String arn : secrets.values()) {
      secretsManager().deleteSecret(r -> r.secretId(arn).forceDeleteWithoutRecovery(true));
    }
    secrets.clear();
    if (secretsManager != null) {
      secretsManager.close();
      secretsManager = null;
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("could not drop the granted users: " + failures);
    }
  }
}
