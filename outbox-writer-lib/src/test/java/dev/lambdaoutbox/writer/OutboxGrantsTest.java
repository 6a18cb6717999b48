package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Privilege;
import dev.lambdaoutbox.core.SqlDialect;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxGrantsTest {
  private static final OutboxTables SHOP = OutboxTables.withPrefix("shop_");

  @Test
  void everyTableOfOutboxTables_isGrantedToSomeRole_butTheSchemaHistory() throws Exception {
    Set<String> tables = new TreeSet<>();
    for (Method m : OutboxTables.class.getDeclaredMethods()) {
      if (m.getReturnType() == String.class
          && m.getParameterCount() == 0
          && Modifier.isPublic(m.getModifiers())
          && !Modifier.isStatic(m.getModifiers())
          && !m.getName().equals("prefix")
          && !m.getName().equals("toString")) {
        tables.add((String) m.invoke(SHOP));
      }
    }
    Set<String> granted = new TreeSet<>();
    for (SqlDialect dialect : SqlDialect.values()) {
      all().grants(dialect).forEach(g -> granted.add(g.table().replaceFirst("^public\\.", "")));
    }

    tables.remove(SHOP.schemaHistory());
    assertThat(granted).isEqualTo(tables);
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void theAudit_isAppendOnlyForEveryRole(SqlDialect dialect) {
    for (OutboxRole role : OutboxRole.values()) {
      for (OutboxGrants.TableGrant grant : grants(dialect, role)) {
        if (grant.table().endsWith(SHOP.deadLetterAudit())) {
          assertThat(grant.privileges())
              .as("%s on the audit", role)
              .doesNotContain(Privilege.UPDATE, Privilege.DELETE);
        }
      }
    }
  }

  /** What each role may do, table by table: the grants users run, pinned. */
  @Test
  void privileges_perRoleAndDialect() {
    assertThat(matrix(SqlDialect.POSTGRESQL, OutboxRole.WRITER))
        .isEqualTo(
            Map.of(
                "outbox_messages", "SELECT, INSERT",
                "outbox_idempotency_keys", "SELECT, INSERT, DELETE",
                "inbox_processed_messages", "SELECT, INSERT, UPDATE, DELETE"));
    assertThat(matrix(SqlDialect.MYSQL, OutboxRole.WRITER))
        .isEqualTo(
            Map.of(
                "outbox_messages", "SELECT, INSERT",
                "outbox_idempotency_keys", "SELECT, INSERT, DELETE",
                "inbox_processed_messages", "SELECT, INSERT, DELETE"));
    assertThat(matrix(SqlDialect.POSTGRESQL, OutboxRole.POLLER))
        .isEqualTo(
            Map.of(
                "outbox_messages", "SELECT, UPDATE, DELETE",
                "outbox_dead_letters", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_dead_letter_audit", "INSERT",
                "outbox_idempotency_keys", "SELECT, UPDATE, DELETE",
                "outbox_destination_health", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_parked_keys", "SELECT, INSERT",
                "outbox_poller_leases", "SELECT, UPDATE",
                "outbox_claim_cursors", "SELECT, INSERT, UPDATE"));
    assertThat(matrix(SqlDialect.MYSQL, OutboxRole.POLLER))
        .isEqualTo(
            Map.of(
                "outbox_messages", "SELECT, UPDATE, DELETE",
                "outbox_dead_letters", "SELECT, INSERT, DELETE",
                "outbox_dead_letter_audit", "INSERT",
                "outbox_idempotency_keys", "SELECT, DELETE",
                "outbox_destination_health", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_parked_keys", "SELECT, INSERT",
                "outbox_poller_leases", "SELECT, UPDATE",
                "outbox_claim_cursors", "SELECT, INSERT, UPDATE"));
    assertThat(matrix(SqlDialect.POSTGRESQL, OutboxRole.REPROCESSOR))
        .isEqualTo(
            Map.of(
                "outbox_messages", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_dead_letters", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_dead_letter_audit", "SELECT, INSERT",
                "outbox_destination_health", "SELECT",
                "outbox_parked_keys", "SELECT, INSERT, UPDATE, DELETE"));
    assertThat(matrix(SqlDialect.MYSQL, OutboxRole.REPROCESSOR))
        .isEqualTo(
            Map.of(
                "outbox_messages", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_dead_letters", "SELECT, INSERT, UPDATE, DELETE",
                "outbox_dead_letter_audit", "SELECT, INSERT",
                "outbox_destination_health", "SELECT",
                "outbox_parked_keys", "SELECT, INSERT, DELETE"));
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void severalRoles_holdTheUnionOfTheirPrivileges(SqlDialect dialect) {
    OutboxGrants both =
        OutboxGrants.builder().roles(OutboxRole.POLLER, OutboxRole.REPROCESSOR).build();
    Map<String, Set<Privilege>> union = new LinkedHashMap<>();
    for (OutboxRole role : List.of(OutboxRole.POLLER, OutboxRole.REPROCESSOR)) {
      for (OutboxGrants.TableGrant g : OutboxGrants.builder().roles(role).build().grants(dialect)) {
        union
            .computeIfAbsent(g.table(), t -> EnumSet.noneOf(Privilege.class))
            .addAll(g.privileges());
      }
    }

    Map<String, Set<Privilege>> combined = new LinkedHashMap<>();
    both.grants(dialect).forEach(g -> combined.put(g.table(), g.privileges()));
    assertThat(combined).isEqualTo(union);
  }

  @Test
  void postgresql_grantsTheSchemaAndQualifiesEveryTable() {
    OutboxGrants grants =
        OutboxGrants.builder().roles(OutboxRole.POLLER).tables(SHOP).schema("outbox").build();

    List<String> statements = grants.statements(SqlDialect.POSTGRESQL, "outbox_poller");

    assertThat(statements.get(0))
        .isEqualTo("GRANT USAGE ON SCHEMA \"outbox\" TO \"outbox_poller\"");
    assertThat(statements.get(1))
        .as("the functions name the tables without their schema")
        .isEqualTo("ALTER ROLE \"outbox_poller\" SET search_path = \"outbox\"");
    assertThat(statements.get(2))
        .isEqualTo(
            "GRANT SELECT, UPDATE, DELETE ON TABLE \"outbox\".\"shop_outbox_messages\" TO"
                + " \"outbox_poller\"");
    assertThat(statements).hasSize(2 + 8);
  }

  @Test
  void postgresql_inPublic_orForTheWriter_leavesTheSearchPathAlone() {
    assertThat(
            OutboxGrants.builder()
                .roles(OutboxRole.POLLER)
                .build()
                .statements(SqlDialect.POSTGRESQL, "p"))
        .first()
        .isEqualTo("GRANT USAGE ON SCHEMA \"public\" TO \"p\"");
    for (OutboxGrants grants :
        List.of(
            OutboxGrants.builder().roles(OutboxRole.POLLER).build(),
            OutboxGrants.builder().roles(OutboxRole.WRITER).schema("app").build())) {
      assertThat(grants.statements(SqlDialect.POSTGRESQL, "u")).noneMatch(s -> s.contains("ALTER"));
    }
  }

  @Test
  void mysql_grantsPerTableInTheDatabase_orInTheCurrentOne() {
    assertThat(
            OutboxGrants.builder()
                .roles(OutboxRole.WRITER)
                .tables(SHOP)
                .schema("orders")
                .build()
                .statements(SqlDialect.MYSQL, "outbox_writer"))
        .containsExactly(
            "GRANT SELECT, INSERT ON `orders`.`shop_outbox_messages` TO 'outbox_writer'@'%'",
            "GRANT SELECT, INSERT, DELETE ON `orders`.`shop_outbox_idempotency_keys` TO"
                + " 'outbox_writer'@'%'",
            "GRANT SELECT, INSERT, DELETE ON `orders`.`shop_inbox_processed_messages` TO"
                + " 'outbox_writer'@'%'");
    assertThat(
            OutboxGrants.builder()
                .roles(OutboxRole.WRITER)
                .build()
                .statements(SqlDialect.MYSQL, "w")
                .get(0))
        .isEqualTo("GRANT SELECT, INSERT ON `outbox_messages` TO 'w'@'%'");
  }

  /**
   * Names with a meaning of their own in a GRANT: PUBLIC (every role, quoted or not, on PostgreSQL;
   * MariaDB 10.11's PUBLIC role), the current or session user, PostgreSQL's reserved and predefined
   * roles. Granting to one would give the functions' rights to everyone, or to the wrong user.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "public",
        "current_user",
        "session_user",
        "current_role",
        "none",
        "all",
        "pg_read_all_data",
        "pg_write_all_data",
        "pg_monitor"
      })
  void statements_whenTheUserIsAReservedName_refuseNamingUser(String user) {
    for (SqlDialect dialect : SqlDialect.values()) {
      assertThatThrownBy(() -> all().statements(dialect, user))
          .as("%s on %s", user, dialect)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("user: '" + user + "' ")
          .hasMessageContaining("reserved");
      assertThatThrownBy(() -> all().script(dialect, user))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void script_isTheStatementsEachAfterItsComments(SqlDialect dialect) {
    OutboxGrants grants = all();
    String script = grants.script(dialect, "outbox_all");

    List<String> code =
        script.lines().filter(l -> !l.startsWith("--")).map(l -> l.replaceAll(";$", "")).toList();
    assertThat(code).isEqualTo(grants.statements(dialect, "outbox_all"));
    String command = "-- " + grants.command(dialect, "outbox_all");
    assertThat(script.lines()).contains(command);
    assertThat(script.lines().filter(l -> l.startsWith("--") && !l.equals(command)))
        .allMatch(l -> l.length() <= 100);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "Outbox",
        "1outbox",
        "out-box",
        "o'x",
        "a b",
        "abcdefghijklmnopqrstuvwxyzabcdefg"
      })
  void statements_whenTheUserIsNoPlainName_refuseNamingUser(String user) {
    assertThatThrownBy(() -> all().statements(SqlDialect.POSTGRESQL, user))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("user: ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Public", "a.b", "s;drop", "x y"})
  void schema_whenNoPlainName_isRefusedNamingSchema(String schema) {
    assertThatThrownBy(() -> OutboxGrants.builder().schema(schema))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schema: ");
  }

  @Test
  void build_withoutARole_isRefusedNamingRoles() {
    assertThatThrownBy(() -> OutboxGrants.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("roles: ");
  }

  private static OutboxGrants all() {
    return OutboxGrants.builder().roles(OutboxRole.values()).tables(SHOP).build();
  }

  private static List<OutboxGrants.TableGrant> grants(SqlDialect dialect, OutboxRole role) {
    return OutboxGrants.builder().roles(role).tables(SHOP).build().grants(dialect);
  }

  private static Map<String, String> matrix(SqlDialect dialect, OutboxRole role) {
    Map<String, String> matrix = new LinkedHashMap<>();
    for (OutboxGrants.TableGrant g : OutboxGrants.builder().roles(role).build().grants(dialect)) {
      matrix.put(g.table().replaceFirst("^public\\.", ""), g.privilegeList());
    }
    return matrix;
  }
}
