package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.PollerWakeUp;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.StatementLog;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a wake-up that finds nothing costs the application's database: the claim's one indexed read
 * and nothing else (no retention purge, no backlog query), so that however many wake-ups an
 * application sends, those beyond its rows stay cheap. A run that finds rows still does both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerWokenRunTest {
  private PollerTestBed bed;
  private String queue;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("woken");
    queue = bed.queue("woken");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void aWokenRunThatFindsNothing_makesOneStatement_itsClaim() throws Exception {
    PollerConfig config =
        bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_WAKE_LINGER_MS", "0");
    StatementLog empty = wake(config);
    assertThat(empty.statements())
        .extracting(StatementLog.Statement::sql)
        .singleElement()
        .asString()
        .contains(bed.tables.messages());

    bed.append(PollerTestBed.event("order.created", "o-1").build());
    StatementLog found = wake(config);
    assertThat(found.statements().size())
        .as("a woken run that published still purges and reads the backlog")
        .isGreaterThan(3);
  }

  /** One woken run in a fresh container, its store's statements logged. */
  private StatementLog wake(PollerConfig config) throws Exception {
    AtomicReference<StatementLog> log = new AtomicReference<>();
    PollerHandler handler =
        new PollerHandler(
            config,
            bed.store(
                config,
                executor -> {
                  log.set(new StatementLog(executor));
                  return log.get();
                }),
            bed.publisher(config),
            bed.clock,
            new SplittableRandom(1),
            bed.out());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(PollerWakeUp.EVENT.getBytes(StandardCharsets.UTF_8)),
        out,
        new FakeLambdaContext("outbox-poller", Duration.ofSeconds(30)));
    assertThat(PollerTestBed.JSON.readTree(out.toByteArray()).get("woken").asBoolean()).isTrue();
    return log.get();
  }
}
