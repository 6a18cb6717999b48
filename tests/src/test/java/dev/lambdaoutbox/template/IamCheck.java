package dev.lambdaoutbox.template;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.docs.DocPages;
import dev.lambdaoutbox.template.AwsCallRecords.Call;
import dev.lambdaoutbox.template.Deployments.Caller;
import dev.lambdaoutbox.template.Deployments.Deployment;
import dev.lambdaoutbox.template.IamEvaluator.Decision;
import dev.lambdaoutbox.template.IamEvaluator.Request;
import dev.lambdaoutbox.template.StackCall.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The IAM check: every AWS call the project's code made (recorded, or written by a test) against
 * the policies that decide it, in every deployment a user may make it in ({@link Deployments}),
 * with template.yaml as AWS's SAM translator renders it ({@link SamTranslator}) for each; the
 * application's wake-ups against the poller's resource policy and the {@code WakeUpInvokerPolicy}
 * output (and the statement docs/writing.md shows); a consumer's reads of claim-check payloads
 * against the policy docs/consuming.md gives consumers. Besides, every policy document of every
 * rendered stack must be one IAM takes.
 */
final class IamCheck {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String STACK = "outbox";

  /**
   * The policies the docs give those outside the stack, as JSON with placeholders.
   *
   * @param consumer the consumer's policy (docs/consuming.md), with {@code BUCKET}, {@code PREFIX},
   *     {@code REGION} and {@code KEY_ARN} for the bucket, the prefix, its region and its key
   * @param wakeUp the statement a role of another account attaches to wake the poller
   *     (docs/writing.md), naming the function of its example, {@link #WAKE_UP_EXAMPLE}
   */
  record DocumentedPolicies(String consumer, String wakeUp) {
    /**
     * The pages' own: the {@code json} block of docs/consuming.md and the one of docs/writing.md
     * that each hand to {@code RecordedCallsIamTest}.
     */
    static DocumentedPolicies fromDocs() {
      return new DocumentedPolicies(block("consuming.md"), block("writing.md"));
    }

    private static String block(String page) {
      List<DocPages.CodeBlock> blocks =
          DocPages.blocks("json").stream()
              .filter(b -> b.page().path().getFileName().toString().equals(page))
              .filter(b -> b.checkedBy().filter("RecordedCallsIamTest"::equals).isPresent())
              .toList();
      if (blocks.size() != 1) {
        throw new AssertionError(
            "docs/"
                + page
                + " should have one json policy block checked by RecordedCallsIamTest: "
                + blocks);
      }
      return blocks.getFirst().text();
    }
  }

  /** The alias ARN the wake-up statement of docs/writing.md names, as its example. */
  static final String WAKE_UP_EXAMPLE =
      "arn:aws:lambda:eu-west-1:123456789012:function:outbox-PollerFunction-AbC:live";

  /**
   * What the check found.
   *
   * @param denials each request a policy that decides it does not allow, with the deployment and
   *     the call that made it
   * @param problems what IAM would refuse in a rendered policy, a call no mapping knows, a
   *     deployment the template's rules refuse, docs that say other than the stack
   * @param covered what kinds of call were checked ({@link #COVERAGE})
   * @param calls how many distinct calls were read
   * @param checks how many (call, deployment) pairs were evaluated
   */
  record Result(
      List<String> denials, List<String> problems, Set<String> covered, int calls, int checks) {}

  /** What the check knows to check: each a configuration the full suite must run. */
  enum Configuration {
    SNS_TOPIC("the poller publishes to an SNS topic"),
    FIFO_TOPIC("the poller publishes to a FIFO topic"),
    SQS_QUEUE("the poller sends to an SQS queue"),
    DESTINATION_KEY("the poller publishes to a destination under a customer-managed key"),
    EVENT_BUS("the poller puts events on an EventBridge bus"),
    CLAIM_CHECK("the poller stores a claim-check payload in a bucket (as created, and existing)"),
    CLAIM_CHECK_KEY(
        "the poller stores a claim-check payload in a bucket under a customer-managed key"),
    FAN_OUT("the poller starts more pollers (fan-out)"),
    DATA_API("a function uses the Data API"),
    POLLER_SECRET_KEY("the poller reads its database secret under a customer-managed key"),
    REPROCESSOR_SECRET_KEY(
        "the reprocessor reads its database secret under a customer-managed key"),
    WAKE_UP("the application wakes the poller"),
    REPLAY_CHECK("the reprocessor checks a replay destination"),
    REPLAY_PUBLISH("the poller publishes to a replay destination"),
    CONSUMER("a consumer reads a claim-check payload"),
    CONSUMER_KEY("a consumer reads a claim-check payload under a customer-managed key");

    final String label;

    Configuration(String label) {
      this.label = label;
    }
  }

  /** The labels of every {@link Configuration}. */
  static final List<String> COVERAGE =
      Arrays.stream(Configuration.values()).map(c -> c.label).toList();

  private IamCheck() {}

  /** Checks {@code calls} against {@code template} and {@code docs}. */
  static Result check(Path template, List<Call> calls, DocumentedPolicies docs) {
    return check(List.of(template), calls, docs).getFirst();
  }

  /**
   * Checks {@code calls} against each of {@code templates} and {@code docs}, with one run of the
   * SAM translator.
   */
  static List<Result> check(List<Path> templates, List<Call> calls, DocumentedPolicies docs) {
    StackCall.Keys keys = StackCall.Keys.of(calls);
    Set<String> unmapped = new LinkedHashSet<>();
    Set<String> covered = new TreeSet<>();

    // The calls, as IAM sees them, with an example of the recorded call each stands for.
    Map<StackCall, Call> stackCalls = new LinkedHashMap<>();
    for (Call call : calls) {
      try {
        StackCall.of(call, keys).forEach(sc -> stackCalls.putIfAbsent(sc, call));
      } catch (IllegalArgumentException e) {
        unmapped.add(e.getMessage());
      } catch (RuntimeException e) {
        unmapped.add("cannot read " + call + " as IAM sees it: " + e);
      }
    }
    Set<String> replayed = new LinkedHashSet<>();
    stackCalls.keySet().stream()
        .filter(sc -> sc.kind() == Kind.READ_TOPIC || sc.kind() == Kind.READ_QUEUE)
        .forEach(sc -> replayed.add(sc.resource()));

    // Alike calls are checked once, in each deployment that makes them.
    Map<Generic, StackCall> examples = new LinkedHashMap<>();
    for (StackCall sc : stackCalls.keySet()) {
      boolean toReplayed =
          (sc.kind() == Kind.PUBLISH || sc.kind() == Kind.SEND) && replayed.contains(sc.resource());
      examples.putIfAbsent(new Generic(sc.generic(), toReplayed), sc);
      covered.addAll(coverage(sc, toReplayed));
    }
    Map<Generic, List<Deployment>> deployments = new LinkedHashMap<>();
    List<Map<String, String>> parameterSets = new ArrayList<>();
    for (Generic g : examples.keySet()) {
      if (consumerRead(g.call())) {
        continue; // checked against the docs' policy
      }
      List<Deployment> of;
      try {
        of = Deployments.of(g.call(), g.replayed());
      } catch (IllegalArgumentException e) {
        unmapped.add(e.getMessage() + "; recorded: " + stackCalls.get(examples.get(g)));
        continue;
      }
      deployments.put(g, of);
      of.forEach(
          d -> {
            if (!parameterSets.contains(d.parameters())) {
              parameterSets.add(d.parameters());
            }
          });
    }
    List<List<SamTemplate>> translations =
        parameterSets.isEmpty()
            ? templates.stream().map(t -> List.<SamTemplate>of()).toList()
            : SamTranslator.translateEach(templates, "jar-1", parameterSets);

    List<Result> results = new ArrayList<>();
    for (int t = 0; t < templates.size(); t++) {
      List<String> denials = new ArrayList<>();
      Set<String> problems = new LinkedHashSet<>(unmapped);
      int checks = 0;
      for (Map.Entry<Generic, StackCall> e : examples.entrySet()) {
        StackCall call = e.getKey().call();
        if (consumerRead(call)) {
          checks++;
          String denied = consumerDenial(call, docs.consumer());
          if (denied != null) {
            denials.add(denied + "; recorded: " + stackCalls.get(e.getValue()));
          }
        }
      }
      Stacks stacks =
          new Stacks(SamTemplate.load(templates.get(t)), translations.get(t), parameterSets);
      for (Map.Entry<Generic, List<Deployment>> e : deployments.entrySet()) {
        StackCall call = e.getKey().call();
        StackCall example = examples.get(e.getKey());
        for (Deployment d : e.getValue()) {
          SamTemplate.Resolved stack = stacks.of(d, problems);
          if (stack == null) {
            continue;
          }
          checks++;
          for (Request request : call.requests()) {
            String denied = denial(stacks, stack, d, request, docs);
            if (denied != null) {
              denials.add(
                  call.principal()
                      + ": "
                      + request
                      + " is "
                      + denied
                      + " in "
                      + d
                      + "; recorded: "
                      + stackCalls.get(example)
                      + " (as "
                      + example.resource()
                      + ")");
            }
          }
          if (d.caller() == Caller.APPLICATION_ELSEWHERE) {
            String documented = wakeUpStatementDiffers(stack, d, docs.wakeUp());
            if (documented != null) {
              problems.add(documented);
            }
          }
        }
      }
      results.add(new Result(denials, new ArrayList<>(problems), covered, calls.size(), checks));
    }
    return results;
  }

  /** A consumer's read of a claim-check payload, which the docs' policy decides. */
  private static boolean consumerRead(StackCall call) {
    return call.kind() == Kind.GET_OBJECT && call.principal().equals("consumer");
  }

  /** A call made generic, and whether its destination is one operators replayed events to. */
  private record Generic(StackCall call, boolean replayed) {}

  /**
   * The rendered stacks of one template, resolved once per deployment, and the role statements of
   * each, read once.
   */
  private static final class Stacks {
    private final SamTemplate raw;
    private final List<SamTemplate> translated;
    private final List<Map<String, String>> parameterSets;
    private final Map<Deployment, SamTemplate.Resolved> resolved = new HashMap<>();
    private final Map<Deployment, Map<String, List<Map<String, Object>>>> roles = new HashMap<>();

    Stacks(SamTemplate raw, List<SamTemplate> translated, List<Map<String, String>> parameterSets) {
      this.raw = raw;
      this.translated = translated;
      this.parameterSets = parameterSets;
    }

    /**
     * The stack of deployment {@code d}, its policies' problems added to {@code problems}; null
     * when the template's rules refuse it (a problem too).
     */
    SamTemplate.Resolved of(Deployment d, Set<String> problems) {
      if (resolved.containsKey(d)) {
        return resolved.get(d);
      }
      refusedValues(d).forEach(p -> problems.add(d + " is refused: " + p));
      SamTemplate.Resolved stack = null;
      List<String> refused = raw.resolve(d.parameters(), STACK, Map.of()).ruleFailures();
      if (!refused.isEmpty()) {
        problems.add(d + " is refused by the template's rules: " + refused);
      } else {
        stack =
            translated
                .get(parameterSets.indexOf(d.parameters()))
                .resolve(d.parameters(), STACK, d.refs());
        StackPolicies.documents(stack)
            .forEach(
                (where, document) ->
                    IamEvaluator.problems(document)
                        .forEach(p -> problems.add(d + ": policy " + where + ": " + p)));
      }
      resolved.put(d, stack);
      return stack;
    }

    /**
     * What CloudFormation refuses in the deployment's parameter values before any rule: a parameter
     * the template does not declare, a value out of its {@code AllowedValues} or {@code
     * AllowedPattern} (each entry of a list).
     */
    private List<String> refusedValues(Deployment d) {
      List<String> refused = new ArrayList<>();
      d.parameters()
          .forEach(
              (name, value) -> {
                Map<String, Object> definition = SamTemplate.map(raw.parameters().get(name));
                if (definition.isEmpty()) {
                  refused.add("the template has no parameter " + name);
                  return;
                }
                boolean list = "CommaDelimitedList".equals(definition.get("Type"));
                Object pattern = definition.get("AllowedPattern");
                Object values = definition.get("AllowedValues");
                for (String entry : list ? value.split(",", -1) : new String[] {value}) {
                  if (pattern != null && !entry.matches(String.valueOf(pattern))) {
                    refused.add(name + " '" + entry + "' does not match its AllowedPattern");
                  }
                  if (values instanceof List<?> allowed
                      && allowed.stream().map(String::valueOf).noneMatch(entry::equals)) {
                    refused.add(name + " '" + entry + "' is not one of its AllowedValues");
                  }
                }
              });
      return refused;
    }

    /** What the function's role may do in deployment {@code d}. */
    List<Map<String, Object>> role(Deployment d, SamTemplate.Resolved stack, String function) {
      return roles
          .computeIfAbsent(d, x -> new HashMap<>())
          .computeIfAbsent(function, f -> StackPolicies.roleStatements(stack, f));
    }
  }

  /** Why {@code request} is not allowed in deployment {@code d}; null when it is. */
  private static String denial(
      Stacks stacks,
      SamTemplate.Resolved stack,
      Deployment d,
      Request request,
      DocumentedPolicies docs) {
    switch (d.caller()) {
      case POLLER, REPROCESSOR -> {
        Decision decision =
            IamEvaluator.decide(stacks.role(d, stack, d.caller().function), request);
        return decision == Decision.ALLOWED
            ? null
            : "denied by " + d.caller().function + "'s role (" + decision + ")";
      }
      case APPLICATION -> {
        Request asRole = asPrincipal(request, d.principal());
        return IamEvaluator.allowedInOneAccount(
                List.of(), StackPolicies.lambdaPermissions(stack), asRole)
            ? null
            : "denied by the poller's resource policy (PollerWakeUpPermission)";
      }
      case APPLICATION_ELSEWHERE -> {
        Request asRole = asPrincipal(request, d.principal());
        List<Map<String, Object>> permissions = StackPolicies.lambdaPermissions(stack);
        if (!IamEvaluator.allowedAcrossAccounts(wakeUpOutput(stack), permissions, asRole)) {
          return "denied by the WakeUpInvokerPolicy output or the poller's resource policy";
        }
        List<Map<String, Object>> documented =
            List.of(statement(docs.wakeUp().replace(WAKE_UP_EXAMPLE, alias(stack))));
        return IamEvaluator.allowedAcrossAccounts(documented, permissions, asRole)
            ? null
            : "denied by the wake-up statement of docs/writing.md";
      }
      default -> throw new IllegalStateException(d.caller().toString());
    }
  }

  private static Request asPrincipal(Request request, String principal) {
    return new Request(principal, request.action(), request.resource(), request.context());
  }

  /** The statement of the stack's {@code WakeUpInvokerPolicy} output. */
  private static List<Map<String, Object>> wakeUpOutput(SamTemplate.Resolved stack) {
    String output = stack.outputs().get("WakeUpInvokerPolicy");
    return output == null ? List.of() : List.of(statement(output));
  }

  /** The alias the stack lets the application invoke (the {@code WakeUpFunctionArn} output). */
  private static String alias(SamTemplate.Resolved stack) {
    return String.valueOf(stack.outputs().get("WakeUpFunctionArn"));
  }

  /** A message when docs/writing.md's statement is not the stack's output for the same alias. */
  private static String wakeUpStatementDiffers(
      SamTemplate.Resolved stack, Deployment d, String documented) {
    List<Map<String, Object>> output = wakeUpOutput(stack);
    Map<String, Object> doc = statement(documented.replace(WAKE_UP_EXAMPLE, alias(stack)));
    return output.equals(List.of(doc))
        ? null
        : "docs/writing.md's wake-up statement "
            + doc
            + " is not the WakeUpInvokerPolicy output "
            + output
            + " in "
            + d;
  }

  /**
   * Why a consumer may not make {@code call} (a read of a payload) with the policy of the docs;
   * null when it may.
   */
  private static String consumerDenial(StackCall call, String policy) {
    String keyArn =
        call.key() != null
            ? call.key()
            : "arn:aws:kms:" + call.region() + ":" + SamTemplate.ACCOUNT + ":key/unused";
    String text =
        policy
            .replace("KEY_ARN", keyArn)
            .replace("BUCKET", call.bucket())
            .replace("PREFIX", call.prefix())
            .replace("REGION", call.region());
    Map<String, Object> document = map(text);
    List<String> problems = IamEvaluator.problems(document);
    if (!problems.isEmpty()) {
      return "docs/consuming.md's consumer policy is one IAM refuses: " + problems;
    }
    List<Map<String, Object>> statements = IamEvaluator.statements(document.get("Statement"));
    for (Request request : call.requests()) {
      Decision decision = IamEvaluator.decide(statements, request);
      if (decision != Decision.ALLOWED) {
        return "consumer: "
            + request
            + " is denied by docs/consuming.md's consumer policy ("
            + decision
            + ") for bucket "
            + call.bucket()
            + ", prefix "
            + call.prefix();
      }
    }
    return null;
  }

  /** What {@code call} shows of the configurations the suite must cover. */
  private static List<String> coverage(StackCall call, boolean replayed) {
    List<Configuration> shown = new ArrayList<>();
    boolean poller = call.principal().equals("poller");
    boolean reprocessor = call.principal().equals("reprocessor");
    boolean keyed = call.key() != null;
    switch (call.kind()) {
      case PUBLISH -> {
        if (poller) {
          shown.add(call.fifo() ? Configuration.FIFO_TOPIC : Configuration.SNS_TOPIC);
        }
      }
      case SEND -> {
        if (poller) {
          shown.add(Configuration.SQS_QUEUE);
        }
      }
      case PUT_EVENTS -> shown.add(Configuration.EVENT_BUS);
      case PUT_OBJECT ->
          shown.add(keyed ? Configuration.CLAIM_CHECK_KEY : Configuration.CLAIM_CHECK);
      case INVOKE -> shown.add(poller ? Configuration.FAN_OUT : Configuration.WAKE_UP);
      case DATA_API -> {
        shown.add(Configuration.DATA_API);
        if (call.secretKey() != null) {
          shown.add(
              reprocessor ? Configuration.REPROCESSOR_SECRET_KEY : Configuration.POLLER_SECRET_KEY);
        }
      }
      case GET_SECRET -> {
        if (keyed) {
          shown.add(
              reprocessor ? Configuration.REPROCESSOR_SECRET_KEY : Configuration.POLLER_SECRET_KEY);
        }
      }
      case READ_TOPIC, READ_QUEUE -> shown.add(Configuration.REPLAY_CHECK);
      case GET_OBJECT -> shown.add(keyed ? Configuration.CONSUMER_KEY : Configuration.CONSUMER);
      case DESCRIBE_BUS -> {
        // looked up before its first put: covered with the puts
      }
    }
    if ((call.kind() == Kind.PUBLISH || call.kind() == Kind.SEND) && keyed && poller) {
      shown.add(Configuration.DESTINATION_KEY);
    }
    if (replayed && poller) {
      shown.add(Configuration.REPLAY_PUBLISH);
    }
    return shown.stream().map(c -> c.label).toList();
  }

  private static Map<String, Object> statement(String json) {
    return map(json);
  }

  private static Map<String, Object> map(String json) {
    try {
      return JSON.readValue(json, new TypeReference<>() {});
    } catch (IOException e) {
      throw new UncheckedIOException("not a JSON policy: " + json, e);
    }
  }
}
