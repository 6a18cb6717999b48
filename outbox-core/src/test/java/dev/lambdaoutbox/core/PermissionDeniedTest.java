package dev.lambdaoutbox.core;

import static dev.lambdaoutbox.core.Privilege.INSERT;
import static dev.lambdaoutbox.core.Privilege.SELECT;
import static dev.lambdaoutbox.core.Privilege.UPDATE;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class PermissionDeniedTest {
  private static final String CLAIM =
      "WITH due AS (SELECT ctid, id FROM m WHERE status = 'PENDING' ORDER BY id LIMIT :limit"
          + " FOR UPDATE SKIP LOCKED), claimed AS (UPDATE m SET locked_by = :owner WHERE m.ctid ="
          + " ANY(ARRAY(SELECT ctid FROM due)) RETURNING m.id) SELECT claimed.* FROM claimed";

  @Test
  void postgresql_namesTheTableAndWhatTheStatementNeedsOnIt() {
    String explained =
        PermissionDenied.explain(
            "ERROR: permission denied for table keys\n  Position: 12",
            "DELETE FROM keys WHERE ctid = ANY(ARRAY(SELECT ctid FROM keys WHERE first_seen_at <"
                + " :cutoff ORDER BY first_seen_at LIMIT :limit FOR UPDATE SKIP LOCKED))");

    assertThat(explained)
        .startsWith("ERROR: permission denied for table keys. The database user lacks one of")
        .contains("SELECT, UPDATE, DELETE on table keys, which this statement needs")
        .contains("scripts/outbox-ops grants")
        .doesNotContain("Position");
  }

  @Test
  void mysql_namesTheTableAndThePrivilegeTheServerNamed() {
    String explained =
        PermissionDenied.explain(
            "DELETE command denied to user 'og_poller'@'127.0.0.1' for table `outbox`.`t_keys`",
            "DELETE FROM t_keys WHERE idempotency_key IN (?, ?)");

    assertThat(explained)
        .contains("The database user lacks DELETE on table t_keys")
        .contains("(this statement needs SELECT, DELETE on it)");
  }

  @Test
  void postgresql_aTableOffTheSearchPath_saysWhereToLook() {
    String explained =
        PermissionDenied.explain(
            "ERROR: relation \"t_messages\" does not exist\n  Position: 20",
            "SELECT id FROM t_messages WHERE id = :id");

    assertThat(explained)
        .startsWith("ERROR: relation \"t_messages\" does not exist. No schema on the database")
        .contains("USAGE")
        .contains("search path");
    assertThat(PermissionDenied.explain("ERROR: relation \"other\" does not exist", CLAIM))
        .as("a table the statement does not name")
        .isNull();
  }

  @Test
  void whatAStatementNeeds_followsItsVerbsAndLocks() {
    assertThat(PermissionDenied.privileges(CLAIM, "m", true)).containsExactly(SELECT, UPDATE);
    assertThat(PermissionDenied.privileges("INSERT INTO a (x) VALUES (?)", "a", true))
        .containsExactly(INSERT);
    assertThat(
            PermissionDenied.privileges(
                "INSERT INTO a (x) VALUES (?) ON CONFLICT DO NOTHING", "a", true))
        .containsExactly(INSERT);
    // A conflict target is read.
    assertThat(
            PermissionDenied.privileges(
                "WITH k AS (INSERT INTO a (x) VALUES (?) ON CONFLICT (x) DO NOTHING RETURNING 1)"
                    + " SELECT count(*) FROM k",
                "a",
                true))
        .containsExactly(SELECT, INSERT);
    assertThat(
            PermissionDenied.privileges(
                "INSERT INTO dl (id) SELECT id FROM m WHERE id = :id", "m", true))
        .containsExactly(SELECT);
    // A lock names its tables with OF: the window read through a subquery is not locked.
    String heads =
        "SELECT m.id FROM (SELECT w.id FROM m w WHERE NOT EXISTS (SELECT 1 FROM k WHERE"
            + " k.a = w.a)) c JOIN m m ON m.id = c.id FOR UPDATE OF m SKIP LOCKED";
    assertThat(PermissionDenied.privileges(heads, "k", true)).containsExactly(SELECT);
    assertThat(PermissionDenied.privileges(heads, "m", true)).containsExactly(SELECT, UPDATE);
    // A scalar subquery of a locking SELECT is not locked; MySQL grants no lock by UPDATE.
    String parked =
        "SELECT k.a, (SELECT count(*) FROM m w WHERE w.a = k.a) AS waiting FROM k k"
            + " WHERE k.id = :id FOR UPDATE";
    assertThat(PermissionDenied.privileges(parked, "m", true)).containsExactly(SELECT);
    assertThat(PermissionDenied.privileges(parked, "k", true)).containsExactly(SELECT, UPDATE);
    assertThat(PermissionDenied.privileges(parked, "k", false)).containsExactly(SELECT);
    assertThat(
            PermissionDenied.privileges(
                "SELECT d.id FROM dl d JOIN m m ON m.id = d.id WHERE d.id = 'x' FOR UPDATE",
                "dl",
                true))
        .containsExactly(SELECT, UPDATE);
  }

  @Test
  void explained_keepsStateAndCode_andPassesOtherErrorsOn() {
    SQLException denied = new SQLException("ERROR: permission denied for table m", "42501", 0);
    SQLException explained = PermissionDenied.explained(denied, CLAIM);

    assertThat(explained.getSQLState()).isEqualTo("42501");
    assertThat((Object) explained.getCause()).isSameAs(denied);
    assertThat(explained.getMessage()).contains("lacks one of SELECT, UPDATE on table m");

    SQLException other = new SQLException("ERROR: syntax error", "42601", 0);
    assertThat((Object) PermissionDenied.explained(other, CLAIM)).isSameAs(other);
    assertThat(PermissionDenied.explain("deadlock detected", CLAIM)).isNull();
  }
}
