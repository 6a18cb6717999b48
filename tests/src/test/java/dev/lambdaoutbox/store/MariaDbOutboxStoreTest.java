package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The store contract over JDBC against MariaDB, and the claim plan there. */
class MariaDbOutboxStoreTest extends JdbcOutboxStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  String sessionIdSql() {
    return "SELECT CONNECTION_ID()";
  }

  @Override
  String killSessionSql(long sessionId) {
    return "KILL " + sessionId;
  }

  /**
   * The access type of each use of {@code table} in a JSON plan ({@code ref}, {@code ALL}, ...).
   */
  private static List<String> accessOf(String plan, String table) {
    List<String> types = new ArrayList<>();
    Matcher m =
        Pattern.compile("\"table_name\": \"" + table + "\",\\s*\"access_type\": \"(\\w+)\"")
            .matcher(plan);
    while (m.find()) {
      types.add(m.group(1));
    }
    return types;
  }

  @Test
  void claimAndBacklogQueries_withLongHistory_useTheirIndexes() throws Exception {
    try (Connection c = database().open()) {
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.sent(100_000, T0);
      loader.pending(1_000, T0);
      String waitingKey = misconfiguredDestinationKey();
      try (Statement st = c.createStatement()) {
        st.execute(
            "UPDATE "
                + tables.messages()
                + " SET waiting_for = '"
                + waitingKey
                + "' WHERE status = 'PENDING' ORDER BY id LIMIT 500");
      }
      loader.analyze();

      String plan = Stores.explainClaim(database(), tables, T0.plusSeconds(1), 500);

      assertThat(plan).contains(tables.messages() + "_due_ix");
      assertThat(plan).doesNotContain("\"access_type\": \"ALL\"");

      // The metrics' query: MIN(not_before) of the PENDING rows is read off the unpublished index
      // without touching the table; the rows waiting for a misconfigured destination are looked
      // up along the waiting index from that destination, however many rows wait.
      String backlog = Stores.explainBacklog(database(), tables, T0.plusSeconds(1));
      assertThat(backlog)
          .contains("Select tables optimized away")
          .contains(tables.messages() + "_waiting_ix");
      assertThat(accessOf(backlog, "w"))
          .as("the outbox in the waiting count, though half its rows wait: %s", backlog)
          .containsExactly("ref");

      // The reprocessor's count and list of the rows waiting for their time: a range of the
      // unpublished index (status, not_before), from now on.
      String waitingForTime = Stores.explainWaitingForTime(database(), tables, T0.plusSeconds(1));
      assertThat(waitingForTime)
          .contains(tables.messages() + "_unpublished_ix")
          .doesNotContain("filesort");
      assertThat(accessOf(waitingForTime, tables.messages())).containsOnly("range");
    }
  }
}
