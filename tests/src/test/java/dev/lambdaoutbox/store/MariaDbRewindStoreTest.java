package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rewinds over JDBC against MariaDB. */
class MariaDbRewindStoreTest extends RewindStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }

  /**
   * Over 300,000 sent rows, every statement of a step and a dry run reads a range of the sent index
   * ({@code (status, sent_at)}, the primary key after it), bounded by its LIMIT.
   */
  @Test
  void theWalkAndTheDryRun_readTheSentIndex_overALongHistory() throws Exception {
    try {
      List<String> plans = plansOverAHistoryOf(300_000);
      assertThat(plans).hasSizeGreaterThanOrEqualTo(3);
      for (String plan : plans) {
        assertThat(plan)
            .contains(tables.messages() + "_sent_ix")
            .doesNotContainPattern(tables.messages() + " \\| ALL \\|");
      }
    } finally {
      rows.execute("DELETE FROM " + tables.messages());
    }
  }
}
