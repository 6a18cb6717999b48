package dev.lambdaoutbox.template;

import dev.lambdaoutbox.reprocessor.ReplayDestinations;
import dev.lambdaoutbox.template.AwsCallRecords.Call;
import dev.lambdaoutbox.template.IamEvaluator.Request;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A recorded AWS call as IAM sees it in a deployed stack: who makes it, what kind of call it is,
 * the resource it acts on, and the customer-managed KMS key that resource is encrypted with (with
 * the Data API, also the secret it reads as the caller and that secret's key). From those, {@link
 * #requests} gives each action on each resource IAM authorizes for the call, as AWS's Service
 * Authorization Reference and the services' guides say (cited beside each kind). ARNs are written
 * in the stack's account ({@link SamTemplate#ACCOUNT}): the test bed's resources are in account
 * 000000000000, the Data API emulator's and the fake Lambda context's in the stack's own.
 *
 * @param principal {@code poller}, {@code reprocessor}, {@code store} (code both functions run),
 *     {@code application} or {@code consumer}
 * @param resource the topic, queue, bus, secret, cluster or function ARN (a function's with its
 *     qualifier when the call names one), or the object's ARN ({@code arn:aws:s3:::BUCKET/KEY})
 * @param key the customer-managed key of the resource, or null (none, or an AWS-managed one)
 * @param secret with the Data API, the secret the call names, which the Data API reads as the
 *     caller
 * @param secretKey that secret's customer-managed key, or null
 * @param action with the Data API, the operation ({@code ExecuteStatement}, ...)
 */
record StackCall(
    String principal,
    Kind kind,
    String resource,
    String key,
    String secret,
    String secretKey,
    String action) {

  /** The kinds of call the project's code makes. */
  enum Kind {
    PUBLISH,
    SEND,
    READ_TOPIC,
    READ_QUEUE,
    PUT_EVENTS,
    DESCRIBE_BUS,
    PUT_OBJECT,
    GET_OBJECT,
    GET_SECRET,
    DATA_API,
    INVOKE
  }

  private static final String ACCOUNT = SamTemplate.ACCOUNT;
  private static final Pattern OBJECT_KEY =
      Pattern.compile(
          "^(.*?)([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(-[0-9a-f]{64})?$");
  private static final Set<String> DATA_API_OPERATIONS =
      Set.of(
          "ExecuteStatement",
          "BatchExecuteStatement",
          "BeginTransaction",
          "CommitTransaction",
          "RollbackTransaction");

  /**
   * What IAM authorizes for this call, without a principal (identity-based policies need none).
   *
   * <ul>
   *   <li>SNS {@code Publish} and {@code PublishBatch}: {@code sns:Publish} on the topic
   *       (https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-language-api-permissions-reference.html,
   *       https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsns.html);
   *       to a topic under a customer-managed key the publisher also needs {@code
   *       kms:GenerateDataKey} and {@code kms:Decrypt} on it
   *       (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).
   *   <li>SQS {@code SendMessage} and {@code SendMessageBatch}: {@code sqs:SendMessage} on the
   *       queue, the batch being authorized as the single action
   *       (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-api-permissions-reference.html,
   *       https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html);
   *       under a customer-managed key, {@code kms:GenerateDataKey} and {@code kms:Decrypt}
   *       (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html).
   *   <li>{@code GetTopicAttributes}, {@code GetQueueAttributes}: the action of that name on the
   *       topic or queue.
   *   <li>EventBridge {@code PutEvents}: {@code events:PutEvents} on each entry's bus (the
   *       account's {@code default} bus for an entry naming none); {@code DescribeEventBus}: {@code
   *       events:DescribeEventBus} on the bus
   *       (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridge.html).
   *   <li>S3 {@code PutObject}: {@code s3:PutObject} on {@code arn:aws:s3:::BUCKET/KEY}, and with
   *       SSE-KMS under a customer-managed key {@code kms:GenerateDataKey} (a single-part upload;
   *       multipart ones would need {@code kms:Decrypt} too); {@code GetObject} and {@code
   *       HeadObject}: {@code s3:GetObject}, and {@code kms:Decrypt}
   *       (https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html,
   *       https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html).
   *   <li>Secrets Manager {@code GetSecretValue}: {@code secretsmanager:GetSecretValue} on the
   *       secret, and {@code kms:Decrypt} on its customer-managed key
   *       (https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html).
   *   <li>The RDS Data API: {@code rds-data:<Operation>} on the cluster, and, the Data API reading
   *       the secret as the caller, {@code secretsmanager:GetSecretValue} on it (and {@code
   *       kms:Decrypt} on its key)
   *       (https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api.access.html,
   *       https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonrdsdataapi.html).
   *   <li>Lambda {@code Invoke}: {@code lambda:InvokeFunction} on the function ARN the call names,
   *       qualified with its version or alias when it names one: a permission on an alias applies
   *       to calls of the alias's ARN only
   *       (https://docs.aws.amazon.com/lambda/latest/dg/lambda-api-permissions-ref.html,
   *       https://docs.aws.amazon.com/lambda/latest/dg/configuration-aliases.html).
   * </ul>
   *
   * A service calls KMS on the caller's behalf with {@code kms:ViaService} set to that service's
   * endpoint ({@code sns.REGION.amazonaws.com}, ...)
   * (https://docs.aws.amazon.com/kms/latest/developerguide/conditions-kms.html#conditions-kms-via-service).
   */
  List<Request> requests() {
    List<Request> requests = new ArrayList<>();
    switch (kind) {
      case PUBLISH -> {
        requests.add(Request.of("sns:Publish", resource));
        keyUse(requests, key, "sns", "kms:GenerateDataKey", "kms:Decrypt");
      }
      case SEND -> {
        requests.add(Request.of("sqs:SendMessage", resource));
        keyUse(requests, key, "sqs", "kms:GenerateDataKey", "kms:Decrypt");
      }
      case READ_TOPIC -> requests.add(Request.of("sns:GetTopicAttributes", resource));
      case READ_QUEUE -> requests.add(Request.of("sqs:GetQueueAttributes", resource));
      case PUT_EVENTS -> requests.add(Request.of("events:PutEvents", resource));
      case DESCRIBE_BUS -> requests.add(Request.of("events:DescribeEventBus", resource));
      case PUT_OBJECT -> {
        requests.add(Request.of("s3:PutObject", resource));
        keyUse(requests, key, "s3", "kms:GenerateDataKey");
      }
      case GET_OBJECT -> {
        requests.add(Request.of("s3:GetObject", resource));
        keyUse(requests, key, "s3", "kms:Decrypt");
      }
      case GET_SECRET -> {
        requests.add(Request.of("secretsmanager:GetSecretValue", resource));
        keyUse(requests, key, "secretsmanager", "kms:Decrypt");
      }
      case DATA_API -> {
        requests.add(Request.of("rds-data:" + action, resource));
        if (secret != null) {
          requests.add(Request.of("secretsmanager:GetSecretValue", secret));
          keyUse(requests, secretKey, "secretsmanager", "kms:Decrypt");
        }
      }
      case INVOKE -> requests.add(Request.of("lambda:InvokeFunction", resource));
    }
    return requests;
  }

  private void keyUse(List<Request> requests, String keyArn, String service, String... actions) {
    if (keyArn == null) {
      return;
    }
    String via = service + "." + region(keyArn) + ".amazonaws.com";
    for (String a : actions) {
      requests.add(new Request(null, a, keyArn, Map.of("kms:ViaService", via)));
    }
  }

  /** The region of the resource the call acts on (an object's: the stack's). */
  String region() {
    return kind == Kind.PUT_OBJECT || kind == Kind.GET_OBJECT
        ? SamTemplate.REGION
        : region(resource);
  }

  /** For an object: its bucket. */
  String bucket() {
    String path = resource.substring("arn:aws:s3:::".length());
    return path.substring(0, path.indexOf('/'));
  }

  /**
   * For an object: the prefix the poller writes under, taken as the object key before the event id
   * (and the payload's digest) that ends it (the whole key when none ends it).
   */
  String prefix() {
    String objectKey = objectKey();
    Matcher m = OBJECT_KEY.matcher(objectKey);
    return m.matches() && !m.group(1).isEmpty() ? m.group(1) : objectKey;
  }

  private String objectKey() {
    String path = resource.substring("arn:aws:s3:::".length());
    return path.substring(path.indexOf('/') + 1);
  }

  /** For a queue: the URL the poller is given. */
  String queueUrl() {
    String[] arn = resource.split(":");
    return "https://sqs." + arn[3] + ".amazonaws.com/" + arn[4] + "/" + arn[5];
  }

  boolean fifo() {
    return resource.endsWith(".fifo");
  }

  /**
   * The same call with every name made generic (a topic {@code events}, a bucket {@code
   * outbox-claims}, keys named for what they encrypt, ...), keeping the region, the kind of each
   * resource, FIFO, a function's qualifier, an object's prefix and which resources have keys: all
   * that template.yaml's policies can tell apart. Calls alike in these are checked once.
   */
  StackCall generic() {
    String r = region();
    String genericResource =
        switch (kind) {
          case PUBLISH, READ_TOPIC -> "arn:aws:sns:" + r + ":" + ACCOUNT + ":events" + fifoSuffix();
          case SEND, READ_QUEUE -> "arn:aws:sqs:" + r + ":" + ACCOUNT + ":events" + fifoSuffix();
          case PUT_EVENTS, DESCRIBE_BUS ->
              "arn:aws:events:"
                  + r
                  + ":"
                  + ACCOUNT
                  + ":event-bus/"
                  + (resource.endsWith("event-bus/default") ? "default" : "events");
          case PUT_OBJECT, GET_OBJECT -> {
            boolean withId = !prefix().equals(objectKey());
            yield "arn:aws:s3:::outbox-claims/"
                + prefix()
                + (withId ? "0190a0a0-0000-7000-8000-000000000000" : "");
          }
          case GET_SECRET -> genericSecret(resource);
          case DATA_API -> "arn:aws:rds:" + r + ":" + ACCOUNT + ":cluster:outbox";
          case INVOKE -> {
            String[] arn = resource.split(":");
            yield "arn:aws:lambda:"
                + r
                + ":"
                + ACCOUNT
                + ":function:outbox-poller"
                + (arn.length > 7 ? ":" + arn[7] : "");
          }
        };
    return new StackCall(
        principal,
        kind,
        genericResource,
        key == null ? null : genericKey(key, kind == Kind.GET_SECRET ? "secret" : "resource"),
        secret == null ? null : genericSecret(secret),
        secretKey == null ? null : genericKey(secretKey, "secret"),
        action);
  }

  private String fifoSuffix() {
    return fifo() ? ".fifo" : "";
  }

  private static String genericSecret(String arn) {
    return "arn:aws:secretsmanager:" + region(arn) + ":" + ACCOUNT + ":secret:outbox-db-AbCdEf";
  }

  private static String genericKey(String arn, String of) {
    return "arn:aws:kms:" + region(arn) + ":" + ACCOUNT + ":key/" + of + "-key";
  }

  private static String region(String arn) {
    String[] parts = arn.split(":", 6);
    return parts.length > 3 ? parts[3] : "";
  }

  @Override
  public String toString() {
    return principal
        + ": "
        + String.join(", ", requests().stream().map(Request::toString).toList());
  }

  /**
   * The calls IAM sees in {@code call}: none for a call only the tests make, one per bus a {@code
   * PutEvents} names, one otherwise.
   *
   * @throws IllegalArgumentException for a call of the project's code this mapping does not know:
   *     it must be added, with its Service Authorization Reference entry
   */
  static List<StackCall> of(Call call, Keys keys) {
    String p = call.principal();
    if (p.equals("test")) {
      return List.of();
    }
    String region = call.region() == null ? SamTemplate.REGION : call.region();
    String service = service(call);
    String op = call.operation();
    switch (service + "." + op) {
      case "sns.Publish", "sns.PublishBatch" -> {
        String topic = stackArn(call.requested("TopicArn"));
        return List.of(new StackCall(p, Kind.PUBLISH, topic, keys.of(topic), null, null, null));
      }
      case "sns.GetTopicAttributes" -> {
        return List.of(
            new StackCall(
                p, Kind.READ_TOPIC, stackArn(call.requested("TopicArn")), null, null, null, null));
      }
      case "sqs.SendMessage", "sqs.SendMessageBatch" -> {
        String queue = keys.queueArn(call.requested("QueueUrl"), region);
        return List.of(new StackCall(p, Kind.SEND, queue, keys.of(queue), null, null, null));
      }
      case "sqs.GetQueueAttributes" -> {
        String queue = keys.queueArn(call.requested("QueueUrl"), region);
        return List.of(new StackCall(p, Kind.READ_QUEUE, queue, null, null, null, null));
      }
      case "eventbridge.PutEvents" -> {
        List<String> buses = call.request("EventBusName");
        List<StackCall> calls = new ArrayList<>();
        for (String bus : buses.isEmpty() ? List.of("default") : buses) {
          calls.add(new StackCall(p, Kind.PUT_EVENTS, busArn(bus, region), null, null, null, null));
        }
        return calls;
      }
      case "eventbridge.DescribeEventBus" -> {
        String bus = call.requested("Name");
        return List.of(
            new StackCall(
                p,
                Kind.DESCRIBE_BUS,
                busArn(bus == null ? "default" : bus, region),
                null,
                null,
                null,
                null));
      }
      case "s3.PutObject", "s3.GetObject", "s3.HeadObject" -> {
        String bucket = call.requested("Bucket");
        String object = "arn:aws:s3:::" + bucket + "/" + call.requested("Key");
        String answered = call.answered("SSEKMSKeyId");
        String key = answered != null ? keys.customerKey(answered, region) : keys.of(bucket);
        Kind kind = op.equals("PutObject") ? Kind.PUT_OBJECT : Kind.GET_OBJECT;
        return List.of(new StackCall(p, kind, object, key, null, null, null));
      }
      case "secretsmanager.GetSecretValue" -> {
        String secret = keys.secretArn(call.requested("SecretId"), region);
        return List.of(
            new StackCall(p, Kind.GET_SECRET, secret, keys.of(secret), null, null, null));
      }
      case "lambda.Invoke" -> {
        return List.of(
            new StackCall(
                p,
                Kind.INVOKE,
                functionArn(call.requested("FunctionName"), call.requested("Qualifier"), region),
                null,
                null,
                null,
                null));
      }
      default -> {
        if (service.equals("rdsdata") && DATA_API_OPERATIONS.contains(op)) {
          String secret = keys.secretArn(call.requested("SecretArn"), region);
          return List.of(
              new StackCall(
                  p,
                  Kind.DATA_API,
                  stackArn(call.requested("ResourceArn")),
                  null,
                  secret,
                  keys.of(secret),
                  op));
        }
        throw new IllegalArgumentException(
            "no IAM mapping for "
                + call.name()
                + ", called by "
                + call
                + ": add it to StackCall, with its Service Authorization Reference entry");
      }
    }
  }

  /** The service, as written in the SDK's execution attributes, lower case and without spaces. */
  static String service(Call call) {
    return String.valueOf(call.service()).toLowerCase(Locale.ROOT).replace(" ", "");
  }

  /** An ARN in the stack's account (an S3 ARN, which names none, as it is). */
  static String stackArn(String arn) {
    if (arn == null) {
      return null;
    }
    String[] parts = arn.split(":", 6);
    if (parts.length < 6 || !parts[4].matches("[0-9]{12}")) {
      return arn;
    }
    parts[4] = ACCOUNT;
    return String.join(":", parts);
  }

  private static String busArn(String bus, String region) {
    return bus.startsWith("arn:")
        ? stackArn(bus)
        : "arn:aws:events:" + region + ":" + ACCOUNT + ":event-bus/" + bus;
  }

  /**
   * The ARN Lambda authorizes an {@code Invoke} of {@code name} (a name, a partial or a full ARN,
   * with or without a version or alias) against, with {@code qualifier} when given.
   */
  static String functionArn(String name, String qualifier, String region) {
    String functionRegion = region;
    String function;
    String nameQualifier = null;
    String[] parts = name.split(":");
    if (name.startsWith("arn:")) {
      functionRegion = parts[3];
      function = parts[6];
      nameQualifier = parts.length > 7 ? parts[7] : null;
    } else if (parts.length >= 3 && parts[1].equals("function")) {
      function = parts[2];
      nameQualifier = parts.length > 3 ? parts[3] : null;
    } else {
      function = parts[0];
      nameQualifier = parts.length > 1 ? parts[1] : null;
    }
    String q = qualifier != null ? qualifier : nameQualifier;
    return "arn:aws:lambda:"
        + functionRegion
        + ":"
        + ACCOUNT
        + ":function:"
        + function
        + (q == null ? "" : ":" + q);
  }

  /**
   * The customer-managed keys of the resources the recorded calls name, as the tests created or
   * configured them, and the names the records give resources by (a secret's name, a queue's URL)
   * as ARNs.
   */
  static final class Keys {
    private final Map<String, String> keys = new HashMap<>();
    private final Map<String, String> secretArns = new HashMap<>();

    /** What {@code calls} say of keys and names. */
    static Keys of(List<Call> calls) {
      Keys k = new Keys();
      for (Call c : calls) {
        String region = c.region() == null ? SamTemplate.REGION : c.region();
        switch (service(c) + "." + c.operation()) {
          case "sns.CreateTopic" ->
              k.put(
                  stackArn(c.answered("TopicArn")),
                  c.requested("Attributes.KmsMasterKeyId"),
                  region);
          case "sns.SetTopicAttributes" ->
              k.put(stackArn(c.requested("TopicArn")), c.requested("AttributeValue"), region);
          case "sqs.CreateQueue" ->
              k.put(
                  k.queueArn(c.answered("QueueUrl"), region),
                  c.requested("Attributes.KmsMasterKeyId"),
                  region);
          case "sqs.SetQueueAttributes" ->
              k.put(
                  k.queueArn(c.requested("QueueUrl"), region),
                  c.requested("Attributes.KmsMasterKeyId"),
                  region);
          case "secretsmanager.CreateSecret" -> {
            String arn = stackArn(c.answered("ARN"));
            if (arn != null) {
              k.secretArns.put(c.requested("Name"), arn);
              k.put(arn, c.requested("KmsKeyId"), region);
            }
          }
          case "secretsmanager.UpdateSecret" ->
              k.put(k.secretArn(c.requested("SecretId"), region), c.requested("KmsKeyId"), region);
          case "s3.PutBucketEncryption" -> {
            if ("aws:kms".equals(c.requested("SSEAlgorithm"))) {
              k.put(c.requested("Bucket"), c.requested("KMSMasterKeyID"), region);
            }
          }
          default -> {
            // Not a call that tells of a key.
          }
        }
      }
      return k;
    }

    private void put(String resource, String key, String region) {
      if (resource != null && key != null) {
        String customer = customerKey(key, region);
        if (customer == null) {
          keys.remove(resource);
        } else {
          keys.put(resource, customer);
        }
      }
    }

    /** The customer-managed key of {@code resource} (an ARN, or a bucket's name), or null. */
    String of(String resource) {
      return keys.get(resource);
    }

    /**
     * The ARN of the key {@code key} names (an ARN, an id, an alias), or null for an AWS-managed
     * key ({@code alias/aws/...}), whose key policy lets the account's principals use it through
     * its service without a policy of theirs.
     */
    String customerKey(String key, String region) {
      if (key == null
          || key.isBlank()
          || key.matches("^(arn:[^:]+:kms:[^:]*:[0-9]*:)?alias/aws/.*")) {
        return null;
      }
      if (key.startsWith("arn:")) {
        return stackArn(key);
      }
      return "arn:aws:kms:"
          + region
          + ":"
          + ACCOUNT
          + ":"
          + (key.startsWith("alias/") ? key : "key/" + key);
    }

    /** The ARN of the queue at {@code url}, as the reprocessor derives it (and IAM sees it). */
    String queueArn(String url, String region) {
      if (url == null) {
        return null;
      }
      return stackArn(
          ReplayDestinations.parse("", region)
              .arnOf(url)
              .orElseThrow(() -> new IllegalArgumentException("no queue ARN for " + url)));
    }

    /** The ARN of the secret {@code id} names (its ARN, or the name it was created with). */
    String secretArn(String id, String region) {
      if (id == null) {
        return null;
      }
      if (id.startsWith("arn:")) {
        return stackArn(id);
      }
      return secretArns.getOrDefault(
          id, "arn:aws:secretsmanager:" + region + ":" + ACCOUNT + ":secret:" + id);
    }

    /** The resources with a customer-managed key, for messages. */
    Set<String> resources() {
      return new LinkedHashSet<>(keys.keySet());
    }
  }
}
