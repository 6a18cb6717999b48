package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.template.AwsCallRecords.Call;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IAM check ({@link IamCheck}) on calls written here, one of each kind the project's code
 * makes, as {@code AwsCallRecorder} records them on the test bed (account 000000000000):
 * template.yaml and the docs' policies allow each in every deployment that makes it, including
 * those the template used to fail (a replay destination the poller publishes to, a database secret
 * under a customer key, buses as the only destinations, a consumer reading a bucket under a
 * customer key); a wake-up of the function's plain name is denied; and a template with one
 * permission less fails the check, naming the action and the resource.
 */
class TemplateIamTest {
  private static final Path TEMPLATE = PackagedFunction.projectRoot().resolve("template.yaml");
  private static final String ACCOUNT = "000000000000";
  private static final String TOPIC = "arn:aws:sns:us-east-1:" + ACCOUNT + ":iam-orders";
  private static final String FIFO_TOPIC = "arn:aws:sns:us-east-1:" + ACCOUNT + ":iam-orders.fifo";
  private static final String QUEUE = "http://127.0.0.1:4566/" + ACCOUNT + "/iam-audit";
  private static final String QUARANTINE = "http://127.0.0.1:4566/" + ACCOUNT + "/iam-quarantine";
  private static final String BUS = "arn:aws:events:us-east-1:" + ACCOUNT + ":event-bus/iam-orders";
  private static final String SECRET =
      "arn:aws:secretsmanager:us-east-1:" + ACCOUNT + ":secret:iam-login-AbCdEf";
  private static final String CLUSTER = "arn:aws:rds:us-east-1:123456789012:cluster:outbox-testbed";
  private static final String POLLER_ARN =
      "arn:aws:lambda:us-east-1:123456789012:function:outbox-poller";
  private static final String OBJECT = "outbox-payloads/0190a0a0-1111-7000-8000-000000000001";

  private static String key(String id) {
    return "arn:aws:kms:us-east-1:" + ACCOUNT + ":key/" + id;
  }

  private static Call call(String principal, String service, String operation, String... fields) {
    return call(principal, service, operation, Map.of(), fields);
  }

  private static Call call(
      String principal,
      String service,
      String operation,
      Map<String, List<String>> response,
      String... fields) {
    Map<String, List<String>> request = new LinkedHashMap<>();
    for (int i = 0; i < fields.length; i += 2) {
      request.computeIfAbsent(fields[i], f -> new ArrayList<>()).add(fields[i + 1]);
    }
    return new Call(principal, null, service, operation, "us-east-1", request, response, null);
  }

  /** One call of each kind, with the test-side calls that tell which resources have keys. */
  private static List<Call> oneOfEach() {
    return new ArrayList<>(
        List.of(
            call(
                "test",
                "Sns",
                "CreateTopic",
                Map.of("TopicArn", List.of(TOPIC)),
                "Name",
                "iam-orders",
                "Attributes.KmsMasterKeyId",
                key("topic")),
            call("poller", "Sns", "PublishBatch", "TopicArn", TOPIC),
            call("poller", "Sns", "PublishBatch", "TopicArn", FIFO_TOPIC),
            call(
                "test",
                "Sqs",
                "CreateQueue",
                Map.of("QueueUrl", List.of(QUEUE)),
                "QueueName",
                "iam-audit",
                "Attributes.KmsMasterKeyId",
                key("queue")),
            call("poller", "Sqs", "SendMessageBatch", "QueueUrl", QUEUE),
            // A destination operators replay to, which the poller then publishes to.
            call("reprocessor", "Sqs", "GetQueueAttributes", "QueueUrl", QUARANTINE),
            call("poller", "Sqs", "SendMessageBatch", "QueueUrl", QUARANTINE),
            call("reprocessor", "Sns", "GetTopicAttributes", "TopicArn", TOPIC),
            call("poller", "EventBridge", "DescribeEventBus", "Name", BUS),
            call("poller", "EventBridge", "PutEvents", "EventBusName", BUS),
            call("poller", "S3", "PutObject", "Bucket", "iam-claims", "Key", OBJECT),
            call(
                "test",
                "S3",
                "PutBucketEncryption",
                "Bucket",
                "iam-claims-kms",
                "SSEAlgorithm",
                "aws:kms",
                "KMSMasterKeyID",
                key("bucket")),
            call("poller", "S3", "PutObject", "Bucket", "iam-claims-kms", "Key", OBJECT),
            call("consumer", "S3", "GetObject", "Bucket", "iam-claims", "Key", OBJECT),
            call("consumer", "S3", "GetObject", "Bucket", "iam-claims-kms", "Key", OBJECT),
            call(
                "test",
                "SecretsManager",
                "CreateSecret",
                Map.of("ARN", List.of(SECRET)),
                "Name",
                "iam-login",
                "KmsKeyId",
                key("secret")),
            call("poller", "SecretsManager", "GetSecretValue", "SecretId", SECRET),
            call("reprocessor", "SecretsManager", "GetSecretValue", "SecretId", SECRET),
            call(
                "store",
                "RdsData",
                "ExecuteStatement",
                "ResourceArn",
                CLUSTER,
                "SecretArn",
                SECRET),
            call("poller", "Lambda", "Invoke", "FunctionName", POLLER_ARN),
            call("application", "Lambda", "Invoke", "FunctionName", "outbox-poller:live")));
  }

  /** A wake-up of the function by its plain name, not the alias {@code live}. */
  private static final Call PLAIN_NAME_WAKE_UP =
      call("application", "Lambda", "Invoke", "FunctionName", "outbox-poller");

  /**
   * What template.yaml lacks in each copy of it, as the check names it, and the copy's text: a
   * permission, or the condition that leaves a policy out. Each is something template.yaml once
   * lacked, or a permission the functions need on every run.
   */
  private static Map<String, String> withOneLess() throws IOException {
    String template = Files.readString(TEMPLATE);
    Map<String, String> copies = new LinkedHashMap<>();
    copies.put(
        "events:DescribeEventBus",
        template.replace(
            "Action: [events:PutEvents, events:DescribeEventBus]", "Action: [events:PutEvents]"));
    copies.put(
        "sqs:SendMessage on arn:aws:sqs:us-east-1:123456789012:events",
        template.replace(
            "Action: [sns:Publish, sqs:SendMessage]\n                  Resource: !Ref ReplayDestinations",
            "Action: [sns:Publish]\n                  Resource: !Ref ReplayDestinations"));
    copies.put(
        "kms:Decrypt on arn:aws:kms:us-east-1:123456789012:key/secret-key",
        template.replace(
            "Action: kms:Decrypt\n              Resource: !Ref DbSecretKmsKeyArn",
            "Action: kms:Encrypt\n              Resource: !Ref DbSecretKmsKeyArn"));
    copies.put(
        "DlqReprocessorFunctionRole/check-destinations: the policy has no statement",
        template.replace(
            "        - !If\n          - ChecksDestinations\n",
            "        - !If\n          - UseJdbc\n"));
    copies.forEach(
        (without, text) ->
            assertThat(text).as("a copy without %s", without).isNotEqualTo(template));
    return copies;
  }

  private static Map<String, String> copies;
  private static List<IamCheck.Result> results;

  /**
   * template.yaml against every call, and, in one more run of the translator, each copy with one
   * permission less against the calls that need what the copies lack.
   */
  @BeforeAll
  static void check(@TempDir Path dir) throws IOException {
    List<Call> calls = oneOfEach();
    calls.add(PLAIN_NAME_WAKE_UP);
    IamCheck.DocumentedPolicies docs = IamCheck.DocumentedPolicies.fromDocs();
    results = new ArrayList<>(List.of(IamCheck.check(TEMPLATE, calls, docs)));

    copies = withOneLess();
    List<Path> templates = new ArrayList<>();
    for (String text : copies.values()) {
      Path copy = dir.resolve("template-" + templates.size() + ".yaml");
      Files.writeString(copy, text);
      templates.add(copy);
    }
    List<Call> needing =
        calls.stream()
            .filter(
                c ->
                    c.principal().equals("test")
                        || c.operation().equals("DescribeEventBus")
                        || c.operation().equals("GetSecretValue")
                        || String.valueOf(c.request().get("QueueUrl")).contains(QUARANTINE))
            .toList();
    results.addAll(IamCheck.check(templates, needing, docs));
  }

  @Test
  void oneCallOfEachKind_isAllowed_inEveryDeploymentThatMakesIt_andCoversEveryConfiguration() {
    IamCheck.Result result = results.getFirst();

    assertThat(result.denials())
        .as("but the plain name's wake-up")
        .allSatisfy(d -> assertThat(d).contains("on " + POLLER_ARN + " is denied"));
    assertThat(result.problems()).isEmpty();
    assertThat(result.covered()).containsExactlyInAnyOrderElementsOf(IamCheck.COVERAGE);
  }

  @Test
  void aWakeUpOfTheFunctionsPlainName_isDenied_thePermissionBeingOnTheAliasOnly() {
    assertThat(results.getFirst().denials())
        .hasSize(2) // by a role of the stack's account, and by one of another
        .allSatisfy(
            d -> assertThat(d).contains("lambda:InvokeFunction on " + POLLER_ARN + " is denied"));
  }

  @Test
  void aConsumerPolicyWithoutTheKeysDecrypt_isDenied_readingABucketUnderACustomerKey() {
    IamCheck.DocumentedPolicies docs = IamCheck.DocumentedPolicies.fromDocs();
    String s3Only =
        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
            + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::BUCKET/PREFIX*\"}]}";
    List<Call> calls =
        oneOfEach().stream()
            .filter(c -> c.principal().equals("consumer") || c.principal().equals("test"))
            .toList();

    IamCheck.Result result =
        IamCheck.check(TEMPLATE, calls, new IamCheck.DocumentedPolicies(s3Only, docs.wakeUp()));

    assertThat(result.denials())
        .singleElement()
        .asString()
        .contains("consumer: kms:Decrypt on arn:aws:kms:us-east-1:123456789012:key/resource-key");
  }

  @Test
  void aTemplateWithAPermissionLess_failsTheCheck_namingTheActionAndTheResource() {
    int i = 1;
    for (String without : copies.keySet()) {
      IamCheck.Result result = results.get(i++);
      List<String> failures = new ArrayList<>(result.denials());
      failures.addAll(result.problems());
      assertThat(failures)
          .as("without %s", without)
          .anySatisfy(f -> assertThat(f).contains(without));
    }
  }
}
