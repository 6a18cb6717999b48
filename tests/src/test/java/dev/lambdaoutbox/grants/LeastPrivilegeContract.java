package dev.lambdaoutbox.grants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.GrantedUsers;
import dev.lambdaoutbox.testing.GrantedUsers.GrantedUser;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxGrants;
import dev.lambdaoutbox.writer.OutboxRole;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The outbox under least privilege: users holding exactly the grants {@link OutboxGrants} makes
 * (created by the tables' owner) do all their work (the {@link Drills}), each grant is needed (the
 * work fails without it), and a missing one is named in the error, table and privilege. One small
 * subclass per store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LeastPrivilegeContract {
  TestDatabase owner;
  OutboxTables tables;
  GrantedUsers users;
  Drills drills;
  private final List<AutoCloseable> executors = new ArrayList<>();

  /** The database, logged in as the owner of the tables the tests create. */
  abstract TestDatabase database();

  /**
   * The store's executor, logged in as {@code user}; what needs closing goes to {@code closing}.
   */
  abstract SqlExecutor executor(GrantedUser user, GrantedUsers users, List<AutoCloseable> closing);

  /** The PostgreSQL schema the tables are in; null for the database's own. */
  String schema() {
    return null;
  }

  @BeforeAll
  void createTablesAndUsers() {
    owner = schema() == null ? database() : database().inSchema(schema());
    tables = owner.createTables("grants");
    users =
        schema() == null
            ? GrantedUsers.of(owner, tables)
            : GrantedUsers.inSchema(owner, tables, schema());
    drills = new Drills(owner, tables);
  }

  @AfterAll
  void dropUsersAndTables() {
    try {
      if (users != null) {
        users.close();
      }
    } finally {
      if (tables != null) {
        owner.dropTables(tables);
      }
      if (owner != null && schema() != null) {
        database().dropSchema(schema());
      }
    }
  }

  @BeforeEach
  void emptyTables() {
    drills.clear();
  }

  @AfterEach
  void closeExecutors() throws Exception {
    for (AutoCloseable executor : executors) {
      executor.close();
    }
    executors.clear();
  }

  SqlExecutor as(GrantedUser user) {
    return executor(user, users, executors);
  }

  @Test
  void eachUser_doesAllItsWork_withExactlyItsGrants() throws Exception {
    drills.writer(users.create(OutboxRole.WRITER).db());
    drills.clear();
    drills.poller(as(users.create(OutboxRole.POLLER)));
    drills.clear();
    drills.reprocessor(as(users.create(OutboxRole.REPROCESSOR)));
  }

  /** The template gives both functions one secret: one user holding both sets of grants. */
  @Test
  void oneUserForBothFunctions_doesTheWorkOfEach() {
    GrantedUser functions = users.create(OutboxRole.POLLER, OutboxRole.REPROCESSOR);
    drills.poller(as(functions));
    drills.clear();
    drills.reprocessor(as(functions));
  }

  /**
   * The poller's grants as an earlier version of the README listed them, with nothing on the
   * idempotency keys: every run fails at its purge, and says what to grant.
   */
  @Test
  void poller_withoutDeleteOnTheIdempotencyKeys_failsItsPurgeNamingTableAndPrivilege() {
    GrantedUser poller = users.create(OutboxRole.POLLER);
    String keys = qualified(poller, tables.idempotencyKeys());
    users.revoke(poller, keys, Privilege.DELETE);

    assertThatThrownBy(() -> drills.poller(as(poller)))
        .hasMessageContaining("could not purge")
        .hasMessageContaining(tables.idempotencyKeys())
        .hasMessageContaining("DELETE")
        .hasMessageContaining("scripts/outbox-ops grants");
  }

  /** Whether to take each grant away in turn here; the Data API runs JDBC's statements. */
  boolean takesEachGrantAway() {
    return true;
  }

  /**
   * Each grant of each user, taken away on its own, makes that user's work fail, with an error that
   * names the table and the privilege: no grant is more than the work needs.
   */
  @Test
  void everyGrant_isNeeded_andItsAbsenceIsNamed() throws Exception {
    if (!takesEachGrantAway()) {
      return;
    }
    List<String> wrong = new ArrayList<>();
    for (OutboxRole role : OutboxRole.values()) {
      GrantedUser user = users.create(role);
      for (OutboxGrants.TableGrant grant : user.grants().grants(owner.dialect())) {
        String table = grant.table().substring(grant.table().indexOf('.') + 1);
        for (Privilege privilege : grant.privileges()) {
          drills.clear();
          users.revoke(user, grant.table(), privilege);
          try {
            work(role, user);
            wrong.add(role.label() + " works without " + privilege + " on " + table);
          } catch (Exception | AssertionError e) {
            String said = messages(e);
            if (!said.contains(table) || !said.contains(privilege.name())) {
              wrong.add(
                  role.label() + " without " + privilege + " on " + table + " failed: " + said);
            }
          } finally {
            users.grant(user, grant.table(), privilege);
            closeExecutors();
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  private void work(OutboxRole role, GrantedUser user) throws Exception {
    switch (role) {
      case WRITER -> drills.writer(user.db());
      case POLLER -> drills.poller(as(user));
      case REPROCESSOR -> drills.reprocessor(as(user));
    }
  }

  static String qualified(GrantedUser user, String table) {
    return user.grants().grants(user.db().dialect()).stream()
        .map(OutboxGrants.TableGrant::table)
        .filter(t -> t.equals(table) || t.endsWith("." + table))
        .findFirst()
        .orElseThrow();
  }

  /** Every message of {@code e}'s chain of causes, one a line. */
  static String messages(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append('\n');
    }
    return text.toString();
  }
}
