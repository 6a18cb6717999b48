package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rewinds over JDBC against PostgreSQL. */
class PostgresRewindStoreTest extends RewindStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }

  /**
   * Over 300,000 sent rows, every statement of a step and a dry run reads along the sent index
   * ({@code sent_at} of the SENT rows), bounded by its LIMIT or by the window of the walk: never
   * the whole table.
   */
  @Test
  void theWalkAndTheDryRun_readTheSentIndex_overALongHistory() throws Exception {
    try {
      List<String> plans = plansOverAHistoryOf(300_000);
      assertThat(plans).hasSizeGreaterThanOrEqualTo(3);
      for (String plan : plans) {
        assertThat(plan)
            .containsPattern(
                "(Index Scan using|Bitmap Index Scan on) " + tables.messages() + "_sent_ix")
            .contains("Limit")
            .doesNotContain("Seq Scan on " + tables.messages());
      }
    } finally {
      rows.execute("TRUNCATE " + tables.messages());
    }
  }
}
