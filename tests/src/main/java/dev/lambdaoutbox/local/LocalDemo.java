package dev.lambdaoutbox.local;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxSchema;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * What the local runs share on the test bed: the outbox tables under the prefix {@code demo_} in
 * its PostgreSQL, and the SNS topic {@code outbox-demo-reservations} as the default destination.
 */
final class LocalDemo {
  static final OutboxTables TABLES = OutboxTables.withPrefix("demo_");
  static final String TOPIC_NAME = "outbox-demo-reservations";

  private LocalDemo() {}

  /** Creates the demo tables unless they exist (the migration is idempotent). */
  static OutboxTables tables(TestDatabase db) {
    OutboxSchema.create(TABLES).migrate(db.jdbi());
    return TABLES;
  }

  /** The demo topic's ARN, creating the topic unless it exists (CreateTopic is idempotent). */
  static String topic(SnsClient sns) {
    return sns.createTopic(r -> r.name(TOPIC_NAME)).topicArn();
  }
}
