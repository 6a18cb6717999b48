package dev.lambdaoutbox.testing;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * An application that is itself a Lambda function, as most writers of a serverless system are: each
 * request appends one event in its own transaction, wakes the poller after the commit and returns
 * at once, and Lambda freezes the function until its next request. Configured as a function is, by
 * its environment: the database ({@code OUTBOX_JDBC_URL}, {@code OUTBOX_DB_USER}, {@code
 * OUTBOX_DB_PASSWORD}), the tables' {@code OUTBOX_TABLE_PREFIX}, and the poller alias to wake,
 * {@code WAKE_UP_FUNCTION_ARN} (the stack's {@code WakeUpFunctionArn} output), and the waker's
 * quiet period in {@code WAKE_UP_QUIET_MS} (unset: the default). Answers the event's id and the
 * time of its commit ({@code System.currentTimeMillis()}).
 */
public final class LambdaWriterFunction implements RequestStreamHandler {
  private final Jdbi jdbi;
  private final OutboxWriter outbox;
  private final PollerWaker waker;

  public LambdaWriterFunction() {
    jdbi =
        Jdbi.create(
            System.getenv("OUTBOX_JDBC_URL"),
            System.getenv("OUTBOX_DB_USER"),
            System.getenv("OUTBOX_DB_PASSWORD"));
    outbox =
        OutboxWriter.builder()
            .tables(OutboxTables.withPrefix(System.getenv("OUTBOX_TABLE_PREFIX")))
            .build();
    PollerWaker.Builder builder =
        PollerWaker.builder().functionName(System.getenv("WAKE_UP_FUNCTION_ARN"));
    String quietMs = System.getenv("WAKE_UP_QUIET_MS");
    if (quietMs != null) {
      builder.quietPeriod(Duration.ofMillis(Long.parseLong(quietMs)));
    }
    waker = builder.build();
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    input.readAllBytes();
    OutboxEvent event =
        OutboxEvent.builder()
            .aggregateType("order")
            .aggregateId("order-" + UUID.randomUUID())
            .eventType("order.created")
            .payload("{\"lines\":1}")
            .build();
    long committedAt =
        jdbi.inTransaction(
            handle -> {
              outbox.append(handle, event);
              waker.afterCommit(handle);
              return System.currentTimeMillis(); // the wake-up is sent after this, on commit
            });
    output.write(
        ("{\"eventId\":\"" + event.id() + "\",\"committedAtMs\":" + committedAt + "}")
            .getBytes(StandardCharsets.UTF_8));
  }
}
