package dev.lambdaoutbox.testing;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.CodeSource;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.awscore.AwsExecutionAttribute;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.regions.Region;

/**
 * Records the AWS calls the project's code makes, for the IAM check of the test suite ({@code
 * RecordedCallsIamTest}): a global interceptor of the AWS SDK, registered through the SDK's {@code
 * software/amazon/awssdk/global/handlers/execution.interceptors} resource of the tests' class path,
 * and put on the class path of every packaged function a test starts ({@link PackagedFunction}),
 * never into a shipped jar.
 *
 * <p>Each call is written, once per distinct line, as a JSON line to a file of its JVM's own in the
 * folder the system property {@value #DIRECTORY_PROPERTY} names (none set: nothing is recorded):
 * who made it (the module of the innermost project class on the calling thread's stack: {@code
 * poller}, {@code reprocessor}, {@code application} for the writer library, {@code consumer}, or
 * {@code store} for the code both functions share), the service, operation and region, the
 * request's and the answer's fields that name a resource or its key, and the error the call ended
 * with. A call only the tests make is written when it tells what key encrypts a resource (creating
 * a topic, a queue, a secret, a bucket's encryption), for the check to know which calls imply KMS.
 * Payloads, secret values and anything else are never written. The publish path the poller's
 * SnapStart priming runs against an in-process stub is not an AWS call and is not recorded.
 */
public final class AwsCallRecorder implements ExecutionInterceptor {
  /** The system property naming the folder the records go to. */
  public static final String DIRECTORY_PROPERTY = "outbox.aws.calls.dir";

  /**
   * The request id the SnapStart priming's in-process stub answers with ({@code SnapStartPriming}):
   * its calls run on the publish threads, whose stacks do not show the priming.
   */
  private static final String PRIMING_REQUEST_ID = "priming";

  /** Module (source folder or jar name) to who runs its code. */
  private static final Map<String, String> PRINCIPALS =
      Map.of(
          "poller-function", "poller",
          "dlq-reprocessor-function", "reprocessor",
          "outbox-writer-lib", "application",
          "outbox-sqs-consumer", "consumer",
          "outbox-store", "store",
          "outbox-core", "store");

  /**
   * What only the tests call, recorded for the keys it tells of (service, lower case, and
   * operation).
   */
  private static final Set<String> KEY_FACTS =
      Set.of(
          "sns.CreateTopic",
          "sns.SetTopicAttributes",
          "sqs.CreateQueue",
          "sqs.SetQueueAttributes",
          "secretsmanager.CreateSecret",
          "secretsmanager.UpdateSecret",
          "s3.PutBucketEncryption");

  /** Fields that name a resource, its key or how it is invoked: the only ones written. */
  private static final Set<String> FIELDS =
      Set.of(
          "TopicArn",
          "QueueUrl",
          "QueueName",
          "Name",
          "ARN",
          "EventBusName",
          "EventBusArn",
          "Bucket",
          "Key",
          "SecretId",
          "ResourceArn",
          "SecretArn",
          "FunctionName",
          "Qualifier",
          "InvocationType",
          "KmsKeyId",
          "KMSMasterKeyID",
          "SSEAlgorithm",
          "SSEKMSKeyId",
          "ServerSideEncryption",
          "AttributeName");

  /** The objects of a request or answer that hold such fields (a bus entry, an encryption rule). */
  private static final Set<String> HOLDERS =
      Set.of(
          "Entries",
          "ServerSideEncryptionConfiguration",
          "Rules",
          "ApplyServerSideEncryptionByDefault");

  /** Of a map of attributes, the entries that say what encrypts a resource or what it is. */
  private static final Set<String> ATTRIBUTES =
      Set.of("KmsMasterKeyId", "FifoTopic", "FifoQueue", "QueueArn");

  private static final ExecutionAttribute<String> PRINCIPAL =
      new ExecutionAttribute<>("OutboxRecordedPrincipal");
  private static final ExecutionAttribute<String> CALLER =
      new ExecutionAttribute<>("OutboxRecordedCaller");

  private static final Map<Class<?>, String> MODULES = new ConcurrentHashMap<>();
  private static final Set<String> WRITTEN = ConcurrentHashMap.newKeySet();
  private static BufferedWriter out;

  /** Who calls, as the stack of the calling thread shows; the SDK runs this on that thread. */
  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    if (System.getProperty(DIRECTORY_PROPERTY) == null) {
      return;
    }
    String[] found = {null, null, null}; // principal, caller, a shared module's principal
    StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
        .forEach(
            frame -> {
              Class<?> type = frame.getDeclaringClass();
              String principal = PRINCIPALS.get(module(type));
              if (principal == null) {
                return;
              }
              if (found[1] == null && type.getName().startsWith("dev.lambdaoutbox.")) {
                found[1] = type.getName();
              }
              if (principal.equals("store")) {
                found[2] = principal;
              } else if (found[0] == null) {
                found[0] = principal;
              }
            });
    attributes.putAttribute(
        PRINCIPAL, found[0] != null ? found[0] : found[2] != null ? found[2] : "test");
    if (found[1] != null) {
      attributes.putAttribute(CALLER, found[1]);
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    if (context
        .httpResponse()
        .firstMatchingHeader("x-amzn-RequestId")
        .filter(PRIMING_REQUEST_ID::equals)
        .isPresent()) {
      return;
    }
    record(context.request(), context.response(), null, attributes);
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    Throwable failure = context.exception();
    String error =
        failure instanceof AwsServiceException e && e.awsErrorDetails() != null
            ? e.statusCode() + " " + e.awsErrorDetails().errorCode()
            : failure.getClass().getSimpleName();
    record(context.request(), context.response().orElse(null), error, attributes);
  }

  private static void record(
      SdkPojo request, SdkPojo response, String error, ExecutionAttributes attributes) {
    String principal = attributes.getAttribute(PRINCIPAL);
    if (principal == null) {
      return; // not recording
    }
    String service = attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME);
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    if (principal.equals("test")
        && !KEY_FACTS.contains(
            String.valueOf(service).toLowerCase(Locale.ROOT).replace(" ", "") + "." + operation)) {
      return;
    }
    Region region = attributes.getAttribute(AwsExecutionAttribute.AWS_REGION);
    StringBuilder line = new StringBuilder(256);
    line.append("{\"principal\":").append(json(principal));
    line.append(",\"caller\":").append(json(attributes.getAttribute(CALLER)));
    line.append(",\"service\":").append(json(service));
    line.append(",\"operation\":").append(json(operation));
    line.append(",\"region\":").append(json(region == null ? null : region.id()));
    line.append(",\"request\":").append(json(fields(request)));
    line.append(",\"response\":").append(json(fields(response)));
    line.append(",\"error\":").append(json(error)).append('}');
    write(line.toString());
  }

  /** The written fields of {@code pojo} and of the objects it holds, by name. */
  private static SortedMap<String, SortedSet<String>> fields(SdkPojo pojo) {
    SortedMap<String, SortedSet<String>> fields = new TreeMap<>();
    collect(pojo, fields, 0);
    return fields;
  }

  private static void collect(Object value, SortedMap<String, SortedSet<String>> into, int depth) {
    if (depth > 5 || !(value instanceof SdkPojo pojo)) {
      return;
    }
    Object attributeName = null;
    for (SdkField<?> field : pojo.sdkFields()) {
      if (name(field).equals("AttributeName")) {
        attributeName = field.getValueOrDefault(pojo);
      }
    }
    for (SdkField<?> field : pojo.sdkFields()) {
      String name = name(field);
      Object v = field.getValueOrDefault(pojo);
      if (v == null) {
        continue;
      }
      if (v instanceof String s
          && (FIELDS.contains(name)
              || (name.equals("AttributeValue") && "KmsMasterKeyId".equals(attributeName)))) {
        add(into, name, s);
      } else if (v instanceof Map<?, ?> map && name.equals("Attributes")) {
        map.forEach(
            (k, attribute) -> {
              if (ATTRIBUTES.contains(String.valueOf(k)) && attribute instanceof String s) {
                add(into, "Attributes." + k, s);
              }
            });
      } else if (HOLDERS.contains(name) && v instanceof Collection<?> items) {
        items.forEach(item -> collect(item, into, depth + 1));
      } else if (HOLDERS.contains(name)) {
        collect(v, into, depth + 1);
      }
    }
  }

  /**
   * A field's name as the API's reference writes it, capitalized ({@code resourceArn}: {@code
   * ResourceArn}).
   */
  private static String name(SdkField<?> field) {
    String name = field.memberName();
    return name.isEmpty() ? name : Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static void add(SortedMap<String, SortedSet<String>> into, String name, String value) {
    into.computeIfAbsent(name, n -> new TreeSet<>()).add(value);
  }

  private static void write(String line) {
    if (!WRITTEN.add(line)) {
      return;
    }
    synchronized (AwsCallRecorder.class) {
      try {
        if (out == null) {
          Path dir = Path.of(System.getProperty(DIRECTORY_PROPERTY));
          Files.createDirectories(dir);
          out =
              Files.newBufferedWriter(
                  dir.resolve("calls-" + ProcessHandle.current().pid() + "-" + System.nanoTime()),
                  StandardCharsets.UTF_8,
                  StandardOpenOption.CREATE_NEW,
                  StandardOpenOption.WRITE);
        }
        out.write(line);
        out.newLine();
        // Each line whole on disk at once: a test may kill this JVM at any moment.
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot record an AWS call in the IAM check's records", e);
      }
    }
  }

  /**
   * The module a class comes from: its source folder's module ({@code <module>/target/classes}) or
   * its jar's name ({@code <module>-<version>.jar}, {@code <module>-<version>-lambda.jar}); null
   * for the JDK's and the tests' own classes.
   */
  private static String module(Class<?> type) {
    return MODULES.computeIfAbsent(type, AwsCallRecorder::moduleOf);
  }

  private static String moduleOf(Class<?> type) {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    URL location = source == null ? null : source.getLocation();
    if (location == null) {
      return "";
    }
    Path path;
    try {
      path = Path.of(location.toURI());
    } catch (Exception e) {
      return ""; // not a file: no module of the project's
    }
    String file = path.getFileName() == null ? "" : path.getFileName().toString();
    if (file.endsWith(".jar")) {
      for (String module : PRINCIPALS.keySet()) {
        if (file.startsWith(module + "-")) {
          return module;
        }
      }
      return "";
    }
    for (Path p = path; p != null && p.getParent() != null; p = p.getParent()) {
      if (p.getFileName().toString().equals("target")) {
        return p.getParent().getFileName().toString();
      }
    }
    return "";
  }

  private static String json(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Map<?, ?> map) {
      StringBuilder s = new StringBuilder("{");
      map.forEach(
          (k, v) ->
              s.append(s.length() > 1 ? "," : "").append(json(k)).append(':').append(json(v)));
      return s.append('}').toString();
    }
    if (value instanceof Collection<?> items) {
      StringBuilder s = new StringBuilder("[");
      items.forEach(v -> s.append(s.length() > 1 ? "," : "").append(json(v)));
      return s.append(']').toString();
    }
    String text = String.valueOf(value);
    StringBuilder s = new StringBuilder(text.length() + 2).append('"');
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        default -> {
          if (c < 0x20) {
            s.append(String.format("\\u%04x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s.append('"').toString();
  }
}
