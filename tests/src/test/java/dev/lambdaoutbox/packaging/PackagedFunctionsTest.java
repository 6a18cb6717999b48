package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.consumer.InboundEvent;
import dev.lambdaoutbox.consumer.SqsInboxConsumer;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.EventSourceMapping;
import dev.lambdaoutbox.testing.GrantedUsers;
import dev.lambdaoutbox.testing.GrantedUsers.GrantedUser;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.PoisonRows;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxRole;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The deployable jars ({@code *-lambda.jar}) as Lambda runs them: each in its own JVM, under AWS's
 * runtime interface client, with only the jar on its class path, configured by environment
 * variables alone; over JDBC, and in {@code OUTBOX_STORE=data-api} mode outside a VPC. They log in
 * through a Secrets Manager secret as database users holding exactly the generated grants ({@link
 * GrantedUsers}): over JDBC one user for both functions, as the template's one secret gives them;
 * over the Data API one each. The application writes as a user with the writer's grants. A refused
 * privilege anywhere, even one a function logs and goes on from, fails the test.
 */
class PackagedFunctionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final String POLLER = "dev.lambdaoutbox.poller.PollerHandler::handleRequest";
  private static final String REPROCESSOR =
      "dev.lambdaoutbox.reprocessor.DeadLetterReprocessorHandler::handleRequest";

  private static TestDatabase db;
  private static AwsEndpoint aws;
  private static DataApiEndpoint dataApi;
  private static OutboxTables tables;
  private static GrantedUsers users;
  private static GrantedUser writer;
  private static GrantedUser functions;
  private static SqsClient sqs;

  @BeforeAll
  static void setUp() {
    db = TestEndpoints.postgres();
    aws = TestEndpoints.aws();
    dataApi = TestEndpoints.dataApi();
    tables = db.createTables("pkg");
    users = GrantedUsers.of(db, tables);
    writer = users.create(OutboxRole.WRITER);
    functions = users.create(OutboxRole.POLLER, OutboxRole.REPROCESSOR);
    sqs = aws.sqs();
  }

  @AfterAll
  static void tearDown() {
    sqs.close();
    try {
      users.close();
    } finally {
      db.dropTables(tables);
    }
  }

  @Test
  void pollerJar_publishesCommittedEventsToSqs() throws Exception {
    String queueUrl = sqs.createQueue(r -> r.queueName("pkg-" + UUID.randomUUID())).queueUrl();
    Set<String> written = new HashSet<>(CommittedEvents.write(writer.db(), tables, 3, 3));

    Map<String, String> env = baseEnvironment();
    env.put("OUTBOX_DEFAULT_DESTINATION", queueUrl);
    LambdaRuntimeEmulator.Result result;
    String output;
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction poller = PackagedFunction.start("poller-function", POLLER, env, runtime)) {
      String event =
          Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
      result = runtime.invoke(event, TIMEOUT);
      output = poller.output();
    }

    assertThat(result.failed()).as("poller error: %s\n%s", result.body(), output).isFalse();
    assertNoPrivilegeRefused(output);
    JsonNode summary = JSON.readTree(result.body());
    assertThat(summary.get("claimed").asInt()).isEqualTo(3);
    assertThat(summary.get("published").asInt()).isEqualTo(3);
    assertThat(output).contains("\"CloudWatchMetrics\"");

    Set<String> received = new HashSet<>();
    for (int attempt = 0; attempt < 5 && received.size() < 3; attempt++) {
      List<Message> messages =
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(queueUrl)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .messageAttributeNames("All"))
              .messages();
      messages.forEach(m -> received.add(m.messageAttributes().get("eventId").stringValue()));
    }
    assertThat(received).isEqualTo(written);
  }

  @Test
  void pollerJar_withoutJdbcUrl_failsInitialisationNamingTheVariable() throws Exception {
    Map<String, String> env = baseEnvironment();
    env.remove("OUTBOX_JDBC_URL");
    LambdaRuntimeEmulator.Result result;
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction poller = PackagedFunction.start("poller-function", POLLER, env, runtime)) {
      result = runtime.invoke("{}", TIMEOUT);
    }
    assertThat(result.failed()).isTrue();
    assertThat(result.body()).contains("OUTBOX_JDBC_URL");
  }

  @Test
  void reprocessorJar_listsDeadLettersAndRefusesBadRequests() throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction reprocessor =
            PackagedFunction.start(
                "dlq-reprocessor-function", REPROCESSOR, baseEnvironment(), runtime)) {
      LambdaRuntimeEmulator.Result list =
          runtime.invoke("{\"action\":\"list\",\"requestedBy\":\"test\"}", TIMEOUT);
      assertThat(list.failed())
          .as("list error: %s\n%s", list.body(), reprocessor.output())
          .isFalse();
      JsonNode report = JSON.readTree(list.body());
      assertThat(report.get("count").asInt()).isZero();
      assertThat(report.get("summary").get("total").asLong()).isZero();

      LambdaRuntimeEmulator.Result bad =
          runtime.invoke("{\"action\":\"replay\",\"idz\":[]}", TIMEOUT);
      assertThat(bad.failed()).isTrue();
      assertThat(bad.body()).contains("idz");
      assertNoPrivilegeRefused(reprocessor.output());
    }
  }

  /**
   * Over the Data API: an application writes events over JDBC with the writer library; the packaged
   * poller publishes them through the RDS Data API (the test bed's emulator, found by the SDK
   * through {@code AWS_ENDPOINT_URL_RDS_DATA}), parks the queue that does not exist (its row waits,
   * not dead-lettered) and dead-letters a row it cannot read, copied in the claim; the packaged
   * reprocessor lists that dead letter and discards it; once the queue exists, the next probe finds
   * it and the poller delivers the waiting row with its original id.
   */
  @Test
  void eventsWrittenOverJdbc_arePublished_parked_deadLettered_listedAndDiscarded_overTheDataApi()
      throws Exception {
    OutboxTables tables = db.createTables("pkgapi");
    try (GrantedUsers own = GrantedUsers.of(db, tables)) {
      overTheDataApi(tables, own);
    } finally {
      db.dropTables(tables);
    }
  }

  private static void overTheDataApi(OutboxTables tables, GrantedUsers own) throws Exception {
    String queue = sqs.createQueue(r -> r.queueName("pkgapi-" + UUID.randomUUID())).queueUrl();
    String missingName = "pkgapi-missing-" + UUID.randomUUID();
    String missing = queue.substring(0, queue.lastIndexOf('/') + 1) + missingName;
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<OutboxEvent> good = new ArrayList<>();
    OutboxEvent waiting =
        event("r-waiting", "{\"n\": -1, \"note\": \"Zoë ☃\"}").toBuilder()
            .destination(missing)
            .build();
    PoisonRows.Kind poison = PoisonRows.kinds(db.dialect()).get(0);
    OutboxEvent unreadable =
        event("r-unreadable", "{\"n\": -2}").toBuilder().idempotencyKey(poison.key()).build();
    own.create(OutboxRole.WRITER)
        .db()
        .jdbi()
        .useTransaction(
            h -> {
              for (int i = 0; i < 3; i++) {
                OutboxEvent e = event("r-" + i, "{\"n\": " + i + "}");
                writer.append(h, e);
                good.add(e);
              }
              writer.append(h, waiting);
              writer.append(h, unreadable);
            });
    PoisonRows.poison(db, tables, unreadable.id(), poison); // a row written around the writer
    Map<String, String> env = dataApiEnvironment();
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.put("OUTBOX_DEFAULT_DESTINATION", queue);
    env.put("OUTBOX_PROBE_INTERVAL_MIN_MS", "1000");
    Map<String, String> pollerEnv = new HashMap<>(env);
    pollerEnv.put("OUTBOX_DATA_API_SECRET_ARN", own.secretArn(own.create(OutboxRole.POLLER)));
    Map<String, String> reprocessorEnv = new HashMap<>(env);
    reprocessorEnv.put(
        "OUTBOX_DATA_API_SECRET_ARN", own.secretArn(own.create(OutboxRole.REPROCESSOR)));
    String scheduled =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));

    try (LambdaRuntimeEmulator pollerRuntime = new LambdaRuntimeEmulator();
        PackagedFunction poller =
            PackagedFunction.start("poller-function", POLLER, pollerEnv, pollerRuntime);
        LambdaRuntimeEmulator reprocessorRuntime = new LambdaRuntimeEmulator();
        PackagedFunction reprocessor =
            PackagedFunction.start(
                "dlq-reprocessor-function", REPROCESSOR, reprocessorEnv, reprocessorRuntime)) {
      // 1. The poller publishes three, parks the missing queue with its row waiting, and
      // dead-letters the row it cannot read.
      JsonNode first = invoke(pollerRuntime, scheduled, poller);
      assertThat(first.get("claimed").asInt()).as("the unreadable row too").isEqualTo(5);
      assertThat(first.get("published").asInt()).isEqualTo(3);
      assertThat(first.get("deferred").asInt()).isEqualTo(1);
      assertThat(first.get("deadLettered").asInt()).isEqualTo(1);
      assertThat(receive(queue, 3))
          .containsExactlyInAnyOrderElementsOf(good.stream().map(e -> e.id().toString()).toList());

      // 2. The reprocessor lists the dead letter, as stored ...
      JsonNode list =
          invoke(
              reprocessorRuntime, "{\"action\":\"list\",\"requestedBy\":\"alice\"}", reprocessor);
      assertThat(list.get("count").asInt()).isEqualTo(1);
      JsonNode dead = list.get("deadLetters").get(0);
      assertThat(dead.get("id").asText()).isEqualTo(unreadable.id().toString());
      assertThat(dead.get("errorCode").asText()).isEqualTo("UNREADABLE_ROW");

      // 3. ... and discards it.
      JsonNode discard =
          invoke(
              reprocessorRuntime,
              "{\"action\":\"discard\",\"ids\":[\""
                  + unreadable.id()
                  + "\"],\"requestedBy\":\"alice\",\"reason\":\"written around the writer\"}",
              reprocessor);
      assertThat(discard.get("discarded"))
          .extracting(JsonNode::asText)
          .containsExactly(unreadable.id().toString());

      // 4. The queue is created; once the probe is due, the poller delivers the waiting row.
      sqs.createQueue(r -> r.queueName(missingName));
      Thread.sleep(1_500);
      JsonNode second = invoke(pollerRuntime, scheduled, poller);
      assertThat(second.get("published").asInt()).isEqualTo(1);
      assertThat(second.get("deadLettered").asInt()).isZero();
      assertThat(receive(missing, 1)).containsExactly(waiting.id().toString());
      sqs.deleteQueue(r -> r.queueUrl(missing));
      assertNoPrivilegeRefused(poller.output());
      assertNoPrivilegeRefused(reprocessor.output());
    }
  }

  /** No statement of the function was refused for want of a privilege, even one it went on from. */
  private static void assertNoPrivilegeRefused(String output) {
    assertThat(output)
        .doesNotContainIgnoringCase("permission denied")
        .doesNotContainIgnoringCase("command denied")
        .doesNotContain("The database user lacks");
  }

  /**
   * The operator's replay, through the jars, as one user for both functions: with ordering, the
   * poller dead-letters each aggregate's first event (its type routed nowhere) and parks the events
   * behind it; the reprocessor lists them and replays them by filter to a queue, which releases the
   * aggregates; the next runs deliver every event, heads first, and purge as every run does.
   */
  @Test
  void deadLettersReplayedToAQueue_arriveThere_headsBeforeTheEventsBehindThem() throws Exception {
    OutboxTables replayTables = db.createTables("pkgrep");
    try (GrantedUsers own = GrantedUsers.of(db, replayTables)) {
      replayToAQueue(replayTables, own);
    } finally {
      db.dropTables(replayTables);
    }
  }

  private static void replayToAQueue(OutboxTables tables, GrantedUsers own) throws Exception {
    String queue = sqs.createQueue(r -> r.queueName("pkgrep-" + UUID.randomUUID())).queueUrl();
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<String> heads = new ArrayList<>();
    List<String> behind = new ArrayList<>();
    TestDatabase asWriter = own.create(OutboxRole.WRITER).db();
    for (int aggregate = 0; aggregate < 3; aggregate++) {
      for (String type : List.of("order.unrouted", "order.shipped")) {
        OutboxEvent e =
            event("order-" + aggregate, "{\"n\": " + aggregate + "}").toBuilder()
                .eventType(type)
                .build();
        asWriter.jdbi().useTransaction(h -> writer.append(h, e));
        (type.equals("order.unrouted") ? heads : behind).add(e.id().toString());
      }
    }
    Map<String, String> env =
        jdbcEnvironment(
            tables, own.secretArn(own.create(OutboxRole.POLLER, OutboxRole.REPROCESSOR)));
    env.put("OUTBOX_ORDERING", "aggregate");
    env.put("OUTBOX_ROUTES", "{\"order.shipped\":\"" + queue + "\"}");
    // The operator may send events to that queue by hand (the stack's ReplayDestinations).
    env.put(
        "OUTBOX_REPLAY_DESTINATIONS",
        "arn:aws:sqs:*:*:" + queue.substring(queue.lastIndexOf('/') + 1));
    String scheduled =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));

    try (LambdaRuntimeEmulator pollerRuntime = new LambdaRuntimeEmulator();
        PackagedFunction poller =
            PackagedFunction.start("poller-function", POLLER, env, pollerRuntime);
        LambdaRuntimeEmulator reprocessorRuntime = new LambdaRuntimeEmulator();
        PackagedFunction reprocessor =
            PackagedFunction.start(
                "dlq-reprocessor-function", REPROCESSOR, env, reprocessorRuntime)) {
      JsonNode first = invoke(pollerRuntime, scheduled, poller);
      assertThat(first.get("deadLettered").asInt()).isEqualTo(3);
      assertThat(first.get("published").asInt()).isZero();

      JsonNode list =
          invoke(
              reprocessorRuntime, "{\"action\":\"list\",\"requestedBy\":\"alice\"}", reprocessor);
      assertThat(list.get("count").asInt()).isEqualTo(3);
      assertThat(list.get("parkedKeys").get("total").asInt()).isEqualTo(3);
      JsonNode replay =
          invoke(
              reprocessorRuntime,
              "{\"action\":\"replay\",\"requestedBy\":\"alice\",\"reason\":\"route added\","
                  + "\"filter\":{\"errorCode\":\"NO_DESTINATION\"},\"destination\":\""
                  + queue
                  + "\",\"dryRun\":false}",
              reprocessor);
      assertThat(replay.get("replayed"))
          .extracting(JsonNode::asText)
          .containsExactlyInAnyOrderElementsOf(heads);

      List<String> arrived = new ArrayList<>();
      for (int run = 0; run < 4 && arrived.size() < 6; run++) {
        invoke(pollerRuntime, scheduled, poller);
        arrived.addAll(receiveInOrder(queue, 6 - arrived.size()));
      }
      assertThat(arrived).containsExactlyInAnyOrderElementsOf(concat(heads, behind));
      for (int aggregate = 0; aggregate < 3; aggregate++) {
        assertThat(arrived.indexOf(heads.get(aggregate)))
            .as("aggregate %d's head first", aggregate)
            .isLessThan(arrived.indexOf(behind.get(aggregate)));
      }
      JsonNode after =
          invoke(
              reprocessorRuntime, "{\"action\":\"list\",\"requestedBy\":\"alice\"}", reprocessor);
      assertThat(after.get("count").asInt()).isZero();
      assertNoPrivilegeRefused(poller.output());
      assertNoPrivilegeRefused(reprocessor.output());
    } finally {
      sqs.deleteQueue(r -> r.queueUrl(queue));
    }
  }

  /** A customer-managed key of the test bed's account, one per resource. */
  private static String customerKey() {
    return "arn:aws:kms:us-east-1:000000000000:key/" + UUID.randomUUID();
  }

  /**
   * A stack where everything is encrypted with a customer-managed KMS key of its own: the database
   * secret both functions read, the SNS topic and the SQS queue the poller publishes to, the
   * existing claim-check bucket (SSE-KMS by default) it stores payloads in, which a consumer reads
   * back. LocalStack stores the keys and encrypts nothing (the test bed runs no KMS), so here the
   * runs work whatever the roles may do: what the keys demand of them ({@code kms:Decrypt} of the
   * secret's key by both functions, of the destinations' and the bucket's keys by the poller, of
   * the bucket's by the consumer) is checked by {@code RecordedCallsIamTest} on the calls these
   * runs make, against template.yaml and docs/consuming.md.
   */
  @Test
  void everythingUnderACustomerManagedKey_publishedStoredAndRead_andBothFunctionsLogIn()
      throws Exception {
    OutboxTables keyTables = db.createTables("pkgkms");
    String name = "pkgkms-" + UUID.randomUUID().toString().substring(0, 8);
    try (GrantedUsers own = GrantedUsers.of(db, keyTables);
        SecretsManagerClient secrets =
            aws.configure(SecretsManagerClient.builder())
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
        SnsClient sns = aws.sns();
        S3Client s3 =
            aws.configure(S3Client.builder())
                .forcePathStyle(true)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build()) {
      GrantedUser user = own.create(OutboxRole.POLLER, OutboxRole.REPROCESSOR);
      String secret =
          secrets
              .createSecret(
                  r ->
                      r.name(name + "-login")
                          .kmsKeyId(customerKey())
                          .secretString(
                              "{\"username\":\""
                                  + user.name()
                                  + "\",\"password\":\""
                                  + user.password()
                                  + "\"}"))
              .arn();
      String topic =
          sns.createTopic(
                  r -> r.name(name + "-topic").attributes(Map.of("KmsMasterKeyId", customerKey())))
              .topicArn();
      String sink = sqs.createQueue(r -> r.queueName(name + "-sink")).queueUrl();
      AwsEndpoint.subscribeRaw(sns, sqs, topic, sink);
      String queue =
          sqs.createQueue(
                  r ->
                      r.queueName(name + "-queue")
                          .attributes(Map.of(QueueAttributeName.KMS_MASTER_KEY_ID, customerKey())))
              .queueUrl();
      String bucket = name + "-claims";
      s3.createBucket(r -> r.bucket(bucket));
      s3.putBucketEncryption(
          r ->
              r.bucket(bucket)
                  .serverSideEncryptionConfiguration(
                      c ->
                          c.rules(
                              rule ->
                                  rule.applyServerSideEncryptionByDefault(
                                      d ->
                                          d.sseAlgorithm(ServerSideEncryption.AWS_KMS)
                                              .kmsMasterKeyID(customerKey())))));
      try {
        underCustomerKeys(keyTables, secret, topic, sink, queue, bucket, s3);
      } finally {
        for (S3Object o : s3.listObjectsV2(r -> r.bucket(bucket)).contents()) {
          s3.deleteObject(r -> r.bucket(bucket).key(o.key()));
        }
        s3.deleteBucket(r -> r.bucket(bucket));
        sqs.deleteQueue(r -> r.queueUrl(queue));
        sqs.deleteQueue(r -> r.queueUrl(sink));
        sns.deleteTopic(r -> r.topicArn(topic));
        secrets.deleteSecret(r -> r.secretId(secret).forceDeleteWithoutRecovery(true));
      }
    } finally {
      db.dropTables(keyTables);
    }
  }

  private static void underCustomerKeys(
      OutboxTables tables,
      String secret,
      String topic,
      String sink,
      String queue,
      String bucket,
      S3Client s3)
      throws Exception {
    OutboxEvent small = event("k-1", "{\"n\": 1}").toBuilder().eventType("key.topic").build();
    String largePayload = "{\"note\": \"" + "x".repeat(300) + "\"}";
    OutboxEvent large = event("k-2", largePayload).toBuilder().eventType("key.queue").build();
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    db.jdbi()
        .useTransaction(
            h -> {
              writer.append(h, small);
              writer.append(h, large);
            });
    Map<String, String> env = jdbcEnvironment(tables, secret);
    env.put("OUTBOX_ROUTES", "{\"key.topic\":\"" + topic + "\",\"key.queue\":\"" + queue + "\"}");
    env.put("OUTBOX_CLAIM_CHECK_BUCKET", bucket);
    env.put("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", AwsEndpoint.ACCOUNT);
    env.put("OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", "100");
    String scheduled =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));

    try (LambdaRuntimeEmulator pollerRuntime = new LambdaRuntimeEmulator();
        PackagedFunction poller =
            PackagedFunction.start("poller-function", POLLER, env, pollerRuntime);
        LambdaRuntimeEmulator reprocessorRuntime = new LambdaRuntimeEmulator();
        PackagedFunction reprocessor =
            PackagedFunction.start(
                "dlq-reprocessor-function", REPROCESSOR, env, reprocessorRuntime)) {
      JsonNode run = invoke(pollerRuntime, scheduled, poller);
      assertThat(run.get("published").asInt()).isEqualTo(2);
      assertThat(run.get("deadLettered").asInt()).isZero();
      assertThat(receive(sink, 1)).containsExactly(small.id().toString());

      Map<UUID, InboundEvent> handled = new ConcurrentHashMap<>();
      SqsInboxConsumer consumer =
          SqsInboxConsumer.builder()
              .jdbi(db.jdbi())
              .consumerName("pkgkms")
              .tables(tables)
              .handler((h, e) -> handled.put(e.eventId(), e))
              .s3(s3)
              .claimCheckLocation(AwsEndpoint.ACCOUNT, bucket, "outbox-payloads/")
              .build();
      EventSourceMapping mapping =
          new EventSourceMapping(
              sqs, queue, AwsEndpoint.queueArn(sqs, queue), aws.region(), consumer::handle);
      for (int i = 0; i < 10 && handled.isEmpty(); i++) {
        mapping.poll();
      }
      assertThat(handled).containsOnlyKeys(large.id());
      assertThat(handled.get(large.id()).payload())
          .as("read from the bucket, not the pointer")
          .isEqualTo(largePayload);
      String queueName = queue.substring(queue.lastIndexOf('/') + 1);
      assertThat(s3.listObjectsV2(r -> r.bucket(bucket)).contents())
          .extracting(S3Object::key)
          .singleElement(STRING)
          .startsWith(
              "outbox-payloads/sqs/"
                  + AwsEndpoint.ACCOUNT
                  + "/"
                  + queueName
                  + "/"
                  + large.id()
                  + "-");

      JsonNode list =
          invoke(
              reprocessorRuntime, "{\"action\":\"list\",\"requestedBy\":\"alice\"}", reprocessor);
      assertThat(list.get("count").asInt()).isZero();
      assertNoPrivilegeRefused(poller.output());
      assertNoPrivilegeRefused(reprocessor.output());
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** Up to {@code expected} event ids from {@code queue}, in the order received, deleted. */
  private static List<String> receiveInOrder(String queue, int expected) {
    List<String> ids = new ArrayList<>();
    for (int attempt = 0; attempt < 10 && ids.size() < expected; attempt++) {
      for (Message m :
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(queue)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .messageAttributeNames("All"))
              .messages()) {
        ids.add(m.messageAttributes().get("eventId").stringValue());
        sqs.deleteMessage(r -> r.queueUrl(queue).receiptHandle(m.receiptHandle()));
      }
    }
    return ids;
  }

  private static JsonNode invoke(
      LambdaRuntimeEmulator runtime, String event, PackagedFunction function) throws Exception {
    LambdaRuntimeEmulator.Result result;
    try {
      result = runtime.invoke(event, TIMEOUT);
    } catch (TimeoutException e) {
      throw new AssertionError(
          "no answer in " + TIMEOUT + "; the function said:\n" + function.output(), e);
    }
    assertThat(result.failed())
        .as("function error: %s\n%s", result.body(), function.output())
        .isFalse();
    return JSON.readTree(result.body());
  }

  private static Set<String> receive(String queue, int expected) {
    return new HashSet<>(receiveInOrder(queue, expected));
  }

  private static OutboxEvent event(String aggregateId, String payload) {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId(aggregateId)
        .eventType("reservation.created")
        .payload(payload)
        .build();
  }

  /**
   * What the template gives the functions in Data API mode, pointed at the test bed: no JDBC URL,
   * no database login, only the cluster, the secret and the database (the test bed's own secret
   * until a test names its user's).
   */
  private static Map<String, String> dataApiEnvironment() {
    Map<String, String> env = baseEnvironment();
    env.remove("OUTBOX_JDBC_URL");
    env.remove("OUTBOX_DB_SECRET_ARN");
    env.putAll(dataApi.functionEnvironment());
    return env;
  }

  /**
   * What the template gives the functions over JDBC: the URL, the secret of the user both functions
   * share, the table prefix, and the test bed's AWS endpoint.
   */
  private static Map<String, String> baseEnvironment() {
    return jdbcEnvironment(tables, users.secretArn(functions));
  }

  private static Map<String, String> jdbcEnvironment(OutboxTables tables, String secretArn) {
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, aws);
    env.remove("OUTBOX_DB_USER");
    env.remove("OUTBOX_DB_PASSWORD");
    env.put("OUTBOX_DB_SECRET_ARN", secretArn);
    return env;
  }
}
