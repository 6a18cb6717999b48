package dev.lambdaoutbox.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * The whole story on the local test bed, as {@code make demo} runs it: an application books 1,000
 * reservations through the writer library (a tenth rolled back), the packaged poller publishes them
 * to an SNS topic the shop's queue is subscribed to (and the payments to an EventBridge bus whose
 * rule forwards them to a second queue of the shop's), and the shop applies each once through its
 * inbox. On the way: the poller's JVM is killed between publish and mark (the inbox absorbs the
 * copies), an event type nobody routed is dead-lettered while the rows bound for a topic nobody
 * created yet wait (the poller parks that destination), the stack's alarms are evaluated on the
 * poller's EMF lines, and once the topic is created and the route added, the parked rows flow at
 * the next probe and the operator lists, dry-runs and replays the dead letters with {@code
 * scripts/outbox-ops}. It ends with a verdict, counted from both ends, and exits 1 when the verdict
 * is not clean.
 *
 * <p>Everything it makes is its own (tables under a random {@code demo_} prefix, topics and a queue
 * named for the run) and is removed at the end, so the test bed stays as it was; set {@code
 * DEMO_KEEP=1} to keep them and look around with the printed {@code outbox-ops} command.
 */
public final class OutboxDemo {
  private static final int RESERVATIONS = 1_000;
  private static final int UPGRADE_EVERY = 18;
  private static final int CANCEL_EVERY = 30;
  private static final int PAY_EVERY = 15;

  /** The large event's note: 75,000 characters of 4 UTF-8 bytes, 300,000 bytes over SNS's limit. */
  private static final int LARGE_NOTE_CHARACTERS = 75_000;

  private static final int STEPS = 10;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private final Steps steps = new Steps(out, STEPS);
  private final Alarms alarms = new Alarms();
  private final TestDatabase db = TestEndpoints.postgres();
  private final AwsEndpoint aws = TestEndpoints.aws();
  private DemoTables tables;
  private final String run =
      Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));

  private OutboxDemo() {}

  public static void main(String[] args) throws Exception {
    System.exit(new OutboxDemo().tell() ? 0 : 1);
  }

  /** The story; true when the verdict is clean. */
  private boolean tell() throws Exception {
    out.println("Lambda Outbox: the whole story on the local test bed (run " + run + ")");
    out.println(
        "PostgreSQL at "
            + db.jdbcUrl()
            + ", SNS and SQS at "
            + aws.endpoint()
            + ", no AWS account");
    Path work = Files.createTempDirectory("outbox-demo-");
    List<String> topics = new ArrayList<>();
    String bucket = "outbox-demo-" + run + "-payloads";
    try (SnsClient sns = aws.sns();
        S3Client s3 = s3()) {
      s3.createBucket(r -> r.bucket(bucket));
      steps.run(
          "the test bed up; the outbox tables migrated as an application does",
          () -> {
            tables = DemoTables.create(db, "demo_" + run + "_");
            steps.detail("prefix %s: %s", tables.outbox().prefix(), tables.migrations());
            return new Steps.Count(tables.migrations().size(), "migrations");
          });
      String shopTopic =
          sns.createTopic(r -> r.name("outbox-demo-" + run + "-reservations")).topicArn();
      topics.add(shopTopic);
      String cancellations = shopTopic.replace("-reservations", "-cancellations");
      try (Shop shop =
              new Shop(
                  aws,
                  s3,
                  bucket,
                  // The shop reads the payloads of the topic it consumes, and no others.
                  "outbox-payloads/sns/"
                      + AwsEndpoint.ACCOUNT
                      + "/outbox-demo-"
                      + run
                      + "-reservations/",
                  db.jdbi(),
                  tables,
                  "outbox-demo-" + run + "-shop");
          PaymentsBus bus =
              new PaymentsBus(aws, "outbox-demo-" + run + "-payments", shop.busQueueArn())) {
        steps.run(
            "the shop: a topic and a bus feed its queues; consumers on the inbox",
            () -> {
              shop.subscribe(shopTopic);
              shop.start();
              steps.detail("topic %s", shopTopic);
              steps.detail(
                  "queue %s (consumer %s, SqsInboxConsumer)", shop.queueUrl(), Shop.CONSUMER);
              steps.detail("bus %s", bus.arn());
              steps.detail(
                  "  its rule (source %s) forwards to %s", PaymentsBus.SOURCE, shop.busQueueArn());
              return new Steps.Count(2, "queues fed");
            });
        return story(
            tables, shop, sns, s3, bucket, shopTopic, cancellations, bus.arn(), topics, work);
      }
    } finally {
      cleanUp(tables, topics, bucket, work);
    }
  }

  private boolean story(
      DemoTables tables,
      Shop shop,
      SnsClient sns,
      S3Client s3,
      String bucket,
      String shopTopic,
      String cancellations,
      String paymentsBus,
      List<String> topics,
      Path work)
      throws Exception {
    Bookings bookings = new Bookings(tables.handle(), tables);
    int[] largeBytes = {0};
    steps.run(
        "1,000 reservations through the writer library, a tenth rolled back",
        () -> {
          bookings.book(RESERVATIONS);
          int upgraded = bookings.upgrade(UPGRADE_EVERY);
          int cancelled = bookings.cancel(CANCEL_EVERY);
          int paid = bookings.pay(PAY_EVERY);
          largeBytes[0] = bookings.bookLarge(LARGE_NOTE_CHARACTERS);
          steps.detail(
              "%,d booked, %,d declined and rolled back (reservation and event: neither exists)",
              bookings.booked(), bookings.rolledBack().size());
          steps.detail(
              "%,d upgrades: %s, a new event type no route names yet", upgraded, Bookings.UPGRADED);
          steps.detail(
              "%,d cancellations: %s, routed to a topic nobody created yet",
              cancelled, Bookings.CANCELLED);
          steps.detail("%,d payments: %s, routed to the EventBridge bus", paid, Bookings.PAID);
          steps.detail(
              "1 reservation with a note of %,d 4-byte characters: a payload of %,d bytes, over"
                  + " SNS's 262,144, for the claim check (bucket %s)",
              LARGE_NOTE_CHARACTERS, largeBytes[0], bucket);
          steps.detail("committed events by type: %s", bookings.committedByType());
          return new Steps.Count(bookings.committed().size(), "events committed");
        });

    Map<String, String> env =
        pollerEnvironment(tables, shopTopic, cancellations, paymentsBus, bucket);
    try (PollerSchedule schedule = new PollerSchedule(env, alarms, steps)) {
      steps.run(
          "the packaged poller publishes; its JVM killed between publish and mark",
          () -> {
            steps.detail(
                "OUTBOX_BATCH_SIZE=1000: claims of up to 1,000 of the %,d events; lease %s s",
                bookings.committed().size(), env.get("OUTBOX_LEASE_SECONDS"));
            PollerSchedule.Crash crash =
                schedule
                    .killBetweenPublishAndMark(shop::seen, tables::leased, Duration.ofMinutes(2))
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "no poller run could be caught between publish and mark in two"
                                    + " minutes; see the runs above"));
            steps.detail(
                "%,d events reached the shop whose rows the dead run never marked: they will be"
                    + " published again",
                crash.publishedNotMarked().size());
            return new Steps.Count(crash.publishedNotMarked().size(), "published, not marked");
          });
      steps.run(
          "the schedule goes on: unrouted type dead-lettered, missing topic parked",
          () -> {
            int runs =
                schedule.runUntil(
                    () ->
                        tables.unpublishedExcept(Bookings.CANCELLED) == 0
                            && alarms.timesFired(Alarms.DEAD_LETTERS) > 0
                            && alarms.inAlarm(Alarms.DESTINATION_DOWN),
                    60);
            steps.detail(
                "%,d dead-lettered (no route); %,d waiting in the outbox for the parked topic, no"
                    + " retry spent; the rest published",
                tables.deadLetters(), tables.unpublished());
            return new Steps.Count(runs, "scheduled runs");
          });

      OperatorTool ops = new OperatorTool(reprocessorEnv(tables, work), work);
      steps.run(
          "the operator, paged, lists what died and why, grouped",
          () -> {
            steps.detail(
                "paged by %s (%s)", Alarms.DEAD_LETTERS.name(), Alarms.DEAD_LETTERS.condition());
            JsonNode list = ops.run("list", "--limit", "1000");
            steps.detail("$ %s", OperatorTool.typed("list"));
            Map<String, String> reasons = new LinkedHashMap<>();
            list.path("deadLetters")
                .forEach(
                    d ->
                        reasons.putIfAbsent(
                            d.path("errorCode").asText(), d.path("errorReason").asText()));
            for (JsonNode g : list.path("summary").path("byErrorCodeAndEventType")) {
              steps.detail(
                  "  %-16s %-24s %4d",
                  g.path("errorCode").asText(),
                  g.path("eventType").asText(),
                  g.path("count").asLong());
            }
            reasons.forEach((code, reason) -> steps.detail("  %s: %s", code, reason));
            for (JsonNode w : list.path("waiting").path("destinations")) {
              steps.detail(
                  "  waiting: %,d rows for %s (%s %s), the oldest %d s",
                  w.path("rows").asLong(),
                  w.path("destination").asText(),
                  w.path("state").asText(),
                  w.path("errorCode").asText(),
                  w.path("oldestAgeSeconds").asLong());
            }
            return new Steps.Count(list.path("summary").path("total").asLong(), "dead letters");
          });
      steps.run(
          "the fix: the missing topic created, the new event type routed",
          () -> {
            sns.createTopic(
                r -> r.name(cancellations.substring(cancellations.lastIndexOf(':') + 1)));
            topics.add(cancellations);
            shop.subscribe(cancellations);
            steps.detail("created %s, the shop's queue subscribed", cancellations);
            String routes =
                routes(
                    Map.of(
                        Bookings.CREATED,
                        shopTopic,
                        Bookings.UPGRADED,
                        shopTopic,
                        Bookings.CANCELLED,
                        cancellations,
                        Bookings.PAID,
                        paymentsBus));
            schedule.redeploy(Map.of("OUTBOX_ROUTES", routes));
            steps.detail("redeployed with OUTBOX_ROUTES=%s", routes);
            steps.detail(
                "the parked topic's rows need no replay: the next probe gets through and they flow");
            return new Steps.Count(2, "fixes");
          });
      int dead = tables.deadLetters();
      String[] replay = {"replay", "--all", "--limit", "1000"};
      steps.run(
          "a dry run of the replay: what it would do, nothing changed",
          () -> {
            String[] dryRun = concat(replay, "--dry-run");
            JsonNode report = ops.run(dryRun);
            steps.detail("$ %s", OperatorTool.typed(dryRun));
            steps.detail("  %s", report.path("message").asText());
            if (tables.deadLetters() != dead) {
              throw new IllegalStateException("the dry run changed the dead letters");
            }
            return new Steps.Count(report.path("wouldReplay").size(), "would be replayed");
          });
      steps.run(
          "the replay: same event ids published again; the parked rows flow too",
          () -> {
            Set<UUID> replayedIds = tables.deadLetterIds();
            String[] real = concat(replay, "--no-dry-run", "--reason", "route added");
            JsonNode report = ops.run(real);
            steps.detail("$ %s", OperatorTool.typed(real));
            steps.detail("  %s", report.path("message").asText());
            schedule.runUntil(
                () ->
                    tables.unpublished() == 0
                        && !alarms.inAlarm(Alarms.DEAD_LETTERS)
                        && !alarms.inAlarm(Alarms.DESTINATION_DOWN)
                        && !alarms.inAlarm(Alarms.WAITING_ON_MISCONFIGURED),
                30);
            shop.awaitQuiet(Duration.ofSeconds(2), Duration.ofSeconds(30));
            Set<UUID> arrived = new HashSet<>(replayedIds);
            arrived.retainAll(tables.applied());
            steps.detail(
                "%,d of %,d replayed events applied by the shop, under their original event ids",
                arrived.size(), replayedIds.size());
            UUID one = replayedIds.iterator().next();
            String[] audit = {"audit", "--id", one.toString()};
            JsonNode e = ops.run(audit).path("entries").path(0);
            steps.detail("$ %s", OperatorTool.typed(audit));
            steps.detail(
                "  %s %s by %s: \"%s\" (was %s)",
                e.path("at").asText(),
                e.path("action").asText(),
                e.path("requestedBy").asText(),
                e.path("reason").asText(),
                e.path("deadLetter").path("errorCode").asText());
            long left = ops.run("list").path("summary").path("total").asLong();
            steps.detail("$ %s  -> %d dead letters left", OperatorTool.typed("list"), left);
            return new Steps.Count(report.path("counts").path("replayed").asLong(), "replayed");
          });
    }

    steps.run(
        "the shop drains its queue; every copy goes through the inbox",
        () -> {
          shop.awaitQuiet(Duration.ofSeconds(3), Duration.ofMinutes(2));
          long twice = shop.copies().values().stream().filter(n -> n > 1).count();
          steps.detail(
              "%,d copies handed to the consumer, %,d applied, %,d events arrived more than once",
              shop.handled(), shop.applied(), twice);
          int stored = s3.listObjectsV2(r -> r.bucket(bucket)).keyCount();
          steps.detail(
              "the large event: %,d bytes committed, %,d bytes handed to the shop's handler, read"
                  + " from S3 (%d payload(s) in %s, the claim check)",
              largeBytes[0], shop.largestPayloadBytes(), stored, bucket);
          Set<UUID> applied = tables.applied();
          List<UUID> paid = bookings.committed(Bookings.PAID);
          steps.detail(
              "%,d of the %,d payments arrived through the EventBridge bus and its rule",
              paid.stream().filter(applied::contains).count(), paid.size());
          return new Steps.Count(shop.applied(), "events applied");
        });

    Verdict verdict =
        Verdict.of(bookings.committed(), tables.applied(), shop.applied(), shop.absorbed());
    steps.printTable();
    out.println();
    StringBuilder fired = new StringBuilder("alarms fired:");
    for (Alarms.Rule rule : Alarms.RULES) {
      fired.append(' ').append(rule.name()).append(' ').append(alarms.timesFired(rule)).append('x');
    }
    out.println(fired);
    Set<UUID> phantoms = new HashSet<>(tables.applied());
    phantoms.retainAll(bookings.rolledBack());
    out.println();
    out.println("VERDICT: " + verdict.line());
    boolean largeIntact = shop.largestPayloadBytes() == largeBytes[0];
    if (!largeIntact) {
      out.println(
          "VERDICT IS NOT CLEAN: the large event's payload reached the shop as "
              + shop.largestPayloadBytes()
              + " bytes, not the "
              + largeBytes[0]
              + " committed");
    }
    if (!verdict.clean()) {
      out.println(
          "VERDICT IS NOT CLEAN: "
              + (verdict.lost() > 0 ? verdict.lost() + " committed event(s) never applied; " : "")
              + (verdict.phantom() > 0
                  ? verdict.phantom()
                      + " applied but never committed ("
                      + phantoms.size()
                      + " rolled back); "
                  : "")
              + (verdict.appliedTwice() > 0 ? verdict.appliedTwice() + " applied twice; " : "")
              + "see the steps above");
    }
    return verdict.clean() && largeIntact;
  }

  private Map<String, String> pollerEnvironment(
      DemoTables tables,
      String shopTopic,
      String cancellations,
      String paymentsBus,
      String bucket) {
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables.outbox(), aws);
    env.put(
        "OUTBOX_ROUTES",
        routes(
            Map.of(
                Bookings.CREATED,
                shopTopic,
                Bookings.CANCELLED,
                cancellations,
                Bookings.PAID,
                paymentsBus)));
    env.put("OUTBOX_BATCH_SIZE", "1000");
    // What a destination cannot carry is stored in S3 and travels as a pointer (the claim check).
    env.put("OUTBOX_CLAIM_CHECK_BUCKET", bucket);
    env.put("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", AwsEndpoint.ACCOUNT);
    env.put("OUTBOX_PUBLISH_CONCURRENCY", "1");
    env.put("OUTBOX_LEASE_SECONDS", "20");
    env.put("OUTBOX_PUBLISH_TIMEOUT_MS", "3000");
    env.put("OUTBOX_SAFETY_MARGIN_MS", "1000");
    env.put("OUTBOX_SERVICE_NAME", "outbox-demo-poller");
    // A parked destination (the topic not created yet) is probed within seconds, not a minute.
    env.put("OUTBOX_PROBE_INTERVAL_MIN_MS", "1000");
    env.put("OUTBOX_PROBE_INTERVAL_MAX_MS", "5000");
    return env;
  }

  /** {@code OUTBOX_ROUTES}: event type to destination, as JSON. */
  private static String routes(Map<String, String> routes) {
    ObjectNode json = JSON.createObjectNode();
    new TreeMap<>(routes).forEach(json::put);
    return json.toString();
  }

  /** The reprocessor's settings for the operator tool, as an operator keeps them in a file. */
  private Path reprocessorEnv(DemoTables tables, Path work) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.outbox().prefix());
    env.put("AWS_REGION", aws.region());
    StringBuilder file = new StringBuilder("# the reprocessor's settings for this demo run\n");
    env.forEach((k, v) -> file.append(k).append('=').append(v).append('\n'));
    Path path = work.resolve("reprocessor.env");
    Files.writeString(path, file);
    return path;
  }

  /** An S3 client for the test bed's endpoint: the claim check's bucket. */
  private S3Client s3() {
    return aws.configure(S3Client.builder())
        .forcePathStyle(true)
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }

  private void cleanUp(DemoTables tables, List<String> topics, String bucket, Path work) {
    if ("1".equals(System.getenv("DEMO_KEEP"))) {
      out.println(
          "\nDEMO_KEEP=1: kept the tables (prefix "
              + (tables == null ? "?" : tables.outbox().prefix())
              + "); look around with\n  OUTBOX_TESTBED=off scripts/outbox-ops --local --env-file "
              + work.resolve("reprocessor.env")
              + " audit");
      return;
    }
    try (SnsClient sns = aws.sns();
        S3Client s3 = s3()) {
      s3.listObjectsV2Paginator(r -> r.bucket(bucket)).contents().stream()
          .forEach(o -> s3.deleteObject(r -> r.bucket(bucket).key(o.key())));
      s3.deleteBucket(r -> r.bucket(bucket));
      for (String topic : topics) {
        sns.deleteTopic(r -> r.topicArn(topic));
      }
      if (tables != null) {
        tables.drop();
      }
      try (Stream<Path> files = Files.list(work)) {
        for (Path file : files.toList()) {
          Files.delete(file);
        }
      }
      Files.delete(work);
    } catch (Exception e) {
      out.println("could not remove everything the demo made: " + e.getMessage());
    }
  }

  private static String[] concat(String[] first, String... then) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(then));
    return all.toArray(String[]::new);
  }
}
