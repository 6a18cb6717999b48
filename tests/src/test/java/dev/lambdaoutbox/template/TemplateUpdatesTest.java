package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a second deploy of the stack reaches, checked as CloudFormation would carry it out: AWS's
 * SAM translator transforms template.yaml for two sets of parameter values (a deploy, then the same
 * stack deployed again with one value changed), CloudFormation's resolution of the result is
 * emulated ({@link SamTemplate}), the custom resources' inline handlers run on the properties
 * CloudFormation would send them, and a resource counts as replaced when one of the properties
 * AWS's resource schema marks create-only changes.
 *
 * <p>For each function, what its invokers run is compared between the two deploys: the schedule's
 * target and the stack's outputs (the operator commands, and the function names that {@code
 * scripts/outbox-ops} invokes as they are). An unqualified invoker runs {@code $LATEST}, which
 * every update changes in place; one through an alias runs the version behind it, which changes
 * only when the alias is pointed at another version resource or that resource is replaced. (A
 * poller run that scales out invokes the ARN it was invoked with, so it runs what the schedule
 * runs.)
 *
 * <p>Which parameters reach a function is not listed here: a parameter reaches one when changing it
 * changes the function's resolved properties, in either store mode.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TemplateUpdatesTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final Path TEMPLATE_FILE = PackagedFunction.projectRoot().resolve("template.yaml");
  private static final String STACK = "outbox";

  /**
   * Second values for parameters whose first change below would not look like a user's: where a
   * pattern refuses the generic change, or the generic change would not be a value of its kind.
   */
  private static final Map<String, String> SAMPLES =
      Map.ofEntries(
          Map.entry("AlarmEmail", "ops@example.com"),
          Map.entry(
              "DatabaseTlsCaLayerArn", "arn:aws:lambda:us-east-1:123456789012:layer:rds-ca:2"),
          Map.entry("OutboxTopicKmsKey", "arn:aws:kms:us-east-1:123456789012:key/1111-2222"),
          Map.entry("ClaimCheckKmsKeyArn", "arn:aws:kms:us-east-1:123456789012:key/7777-8888"),
          Map.entry("DbSecretKmsKeyArn", "arn:aws:kms:us-east-1:123456789012:key/3333-4444"),
          Map.entry("StackKmsKeyArn", "arn:aws:kms:us-east-1:123456789012:key/7777-8888"),
          Map.entry("DefaultDestination", "arn:aws:sns:us-east-1:123456789012:orders"),
          Map.entry(
              "Routes", "{\"reservation.*\":\"arn:aws:sns:us-east-1:123456789012:reservations\"}"),
          Map.entry("PublishTopicArns", "arn:aws:sns:us-east-1:123456789012:reservations"),
          Map.entry("PublishQueueArns", "arn:aws:sqs:us-east-1:123456789012:audit"),
          Map.entry(
              "PublishEventBusArns", "arn:aws:events:us-east-1:123456789012:event-bus/orders"),
          Map.entry("PublishKmsKeyArns", "arn:aws:kms:us-east-1:123456789012:key/5555-6666"),
          Map.entry("ReplayDestinations", "arn:aws:sqs:us-east-1:123456789012:quarantine"),
          Map.entry("ScheduleExpression", "rate(5 minutes)"),
          Map.entry("WakeUpInvokerRoleArn", "arn:aws:iam::123456789012:role/orders-app"));

  private static final Pattern FUNCTION_NAME_ARGUMENT = Pattern.compile("--function-name (\\S+)");

  /** What a deploy is, against the first deploy of its store mode. */
  enum Kind {
    FIRST("first deploy"),
    AGAIN("the same values again"),
    CHANGED("changed"),
    GIVEN_AT_DEFAULT("given at its default"),
    NEW_JAR("a new jar");

    final String text;

    Kind(String text) {
      this.text = text;
    }
  }

  /**
   * One deploy: the values it was given, what the translator made of the template, and what its
   * custom resources answered (their physical ids, filled in by {@link #answerCustomResources}).
   */
  final class Deploy {
    final StoreMode mode;
    final Kind kind;
    final String parameter;
    final Map<String, String> parameters;
    SamTemplate translated;
    final Map<String, String> answers = new LinkedHashMap<>();
    private SamTemplate.Resolved stack;
    private SamTemplate.Resolved withoutAnswers;

    Deploy(StoreMode mode, Kind kind, String parameter, Map<String, String> parameters) {
      this.mode = mode;
      this.kind = kind;
      this.parameter = parameter;
      this.parameters = parameters;
    }

    String label() {
      return mode + ": " + (parameter == null ? "" : parameter + " ") + kind.text;
    }

    void forget() {
      stack = null;
      withoutAnswers = null;
    }

    /** The stack as CloudFormation resolves it, custom resources answering as their handlers do. */
    SamTemplate.Resolved stack() {
      if (stack == null) {
        stack = resolve(answers);
      }
      return stack;
    }

    /**
     * A function's properties as the parameters make them, apart from what the custom resources
     * answer (those held at one value): what the function reads, not how its versions are named.
     */
    Map<String, Object> ownProperties(String function) {
      if (withoutAnswers == null) {
        withoutAnswers = resolve(Map.of());
      }
      return withoutAnswers.properties(function);
    }

    /**
     * Resolved with {@code fixed} as the values of some references, and every other resource's
     * reference naming, besides the resource, its create-only properties: a resource that one of
     * them, changed, replaces gets a new physical id, as in CloudFormation.
     */
    private SamTemplate.Resolved resolve(Map<String, String> fixed) {
      Map<String, String> refs = new LinkedHashMap<>(fixed);
      for (int pass = 0; pass < 10; pass++) {
        SamTemplate.Resolved resolved = translated.resolve(parameters, STACK, refs);
        Map<String, String> next = new LinkedHashMap<>(fixed);
        resolved
            .resources()
            .forEach(
                (id, resource) -> {
                  List<String> names = createOnly.get(String.valueOf(resource.get("Type")));
                  Map<String, Object> identity =
                      names == null ? Map.of() : createOnlyProperties(resource, names);
                  if (!fixed.containsKey(id) && !identity.isEmpty()) {
                    next.put(id, "arn-of-" + id + "@" + identity);
                  }
                });
        if (next.equals(refs)) {
          return resolved;
        }
        refs = next;
      }
      throw new AssertionError(label() + ": references between replaced resources do not settle");
    }
  }

  /** Who invokes a function, and through which alias ({@code null}: unqualified, $LATEST). */
  record Invoker(String who, String function, String alias) {
    @Override
    public String toString() {
      return who + (alias == null ? " ($LATEST)" : " (alias " + alias + ")");
    }
  }

  private String translatorVersion;
  private final Map<StoreMode, Deploy> base = new LinkedHashMap<>();
  private final Map<StoreMode, Deploy> again = new LinkedHashMap<>();
  private final Map<StoreMode, Deploy> newJar = new LinkedHashMap<>();
  private final Map<StoreMode, Map<String, Deploy>> changed = new LinkedHashMap<>();
  private final Map<StoreMode, Map<String, Deploy>> defaultsGiven = new LinkedHashMap<>();
  private final Map<String, List<String>> createOnly = new LinkedHashMap<>();

  @BeforeAll
  void deployEveryVariant() {
    List<Deploy> deploys = new ArrayList<>();
    for (StoreMode mode : StoreMode.values()) {
      Map<String, String> values = baseParameters(mode);
      deploys.add(new Deploy(mode, Kind.FIRST, null, values));
      deploys.add(new Deploy(mode, Kind.AGAIN, null, new LinkedHashMap<>(values)));
      for (Map.Entry<String, Object> p : TEMPLATE.parameters().entrySet()) {
        String name = p.getKey();
        Map<String, Object> definition = SamTemplate.map(p.getValue());
        Map<String, String> variant = new LinkedHashMap<>(values);
        variant.put(name, changedValue(name, definition, valueOf(values, name, definition)));
        deploys.add(new Deploy(mode, Kind.CHANGED, name, variant));
        if (!values.containsKey(name) && definition.containsKey("Default")) {
          Map<String, String> explicit = new LinkedHashMap<>(values);
          explicit.put(name, String.valueOf(definition.get("Default")));
          deploys.add(new Deploy(mode, Kind.GIVEN_AT_DEFAULT, name, explicit));
        }
      }
    }
    List<Deploy> newJars = new ArrayList<>();
    for (StoreMode mode : StoreMode.values()) {
      newJars.add(new Deploy(mode, Kind.NEW_JAR, null, baseParameters(mode)));
    }
    translate(deploys, "jar-1");
    translate(newJars, "jar-2");
    deploys.addAll(newJars);
    answerCustomResources(deploys);

    for (Deploy d : deploys) {
      assertThat(d.stack().ruleFailures()).as("%s: the stack is accepted", d.label()).isEmpty();
      switch (d.kind) {
        case FIRST -> base.put(d.mode, d);
        case AGAIN -> again.put(d.mode, d);
        case NEW_JAR -> newJar.put(d.mode, d);
        case CHANGED ->
            changed.computeIfAbsent(d.mode, m -> new LinkedHashMap<>()).put(d.parameter, d);
        case GIVEN_AT_DEFAULT ->
            defaultsGiven.computeIfAbsent(d.mode, m -> new LinkedHashMap<>()).put(d.parameter, d);
      }
    }
  }

  private void translate(List<Deploy> deploys, String artifact) {
    SamTranslator.Translation translation =
        SamTranslator.translate(
            TEMPLATE_FILE, artifact, deploys.stream().map(d -> d.parameters).toList());
    translatorVersion = translation.translatorVersion();
    translation.createOnly().forEach(createOnly::putIfAbsent);
    for (int i = 0; i < deploys.size(); i++) {
      deploys.get(i).translated = translation.templates().get(i);
    }
  }

  // ---- the behaviour

  @Test
  void everyParameterChange_thatReachesAFunction_reachesWhatEveryInvokerOfItRuns() {
    List<String> missed = new ArrayList<>();
    forEachChange(
        (mode, parameter, before, after) -> {
          for (String function : functionsChanged(before, after)) {
            for (Invoker invoker : invokers(before)) {
              if (invoker.function().equals(function)
                  && runs(before, invoker).equals(runs(after, invoker))) {
                missed.add(
                    String.format(
                        "%s changed (%s): %s's configuration changed, but %s still runs %s",
                        parameter, mode, function, invoker, runs(before, invoker)));
              }
            }
          }
        });
    assertThat(missed)
        .as(
            "parameter changes that reach $LATEST but not what is invoked (SAM translator %s)",
            translatorVersion)
        .isEmpty();
  }

  @Test
  void theParametersThatReachAFunction_includeEveryOneItsEnvironmentNames() {
    Set<String> named = new TreeSet<>();
    for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
      TEMPLATE.rawEnvironment(function).values().forEach(raw -> named.addAll(parameterRefs(raw)));
    }
    assertThat(named).as("parameters the functions' environments name").contains("MaxRetries");
    Set<String> reaching = reaching();
    Set<String> none = new TreeSet<>(TEMPLATE.parameters().keySet());
    none.removeAll(reaching);
    System.out.println("parameters that reach a function: " + reaching);
    System.out.println("parameters that reach none: " + none);
    assertThat(reaching).containsAll(named);
  }

  @Test
  void deployingTheSameValuesAgain_changesNothingAnyInvokerRuns() {
    for (StoreMode mode : StoreMode.values()) {
      Deploy first = base.get(mode);
      List<Deploy> sameValues = new ArrayList<>(List.of(again.get(mode)));
      sameValues.addAll(defaultsGiven.get(mode).values());
      for (Deploy second : sameValues) {
        for (Invoker invoker : invokers(first)) {
          assertThat(runs(second, invoker))
              .as("%s: what %s runs", second.label(), invoker)
              .isEqualTo(runs(first, invoker));
        }
      }
    }
  }

  /** A new version means a new SnapStart snapshot and cold starts: only for a real change. */
  @Test
  void aParameterThatReachesNoFunction_publishesNoVersion() {
    Set<String> reaching = reaching();
    List<String> needless = new ArrayList<>();
    forEachChange(
        (mode, parameter, before, after) -> {
          if (reaching.contains(parameter)) {
            return;
          }
          for (Invoker invoker : invokers(before)) {
            if (!runs(before, invoker).equals(runs(after, invoker))) {
              needless.add(parameter + " (" + mode + "): " + invoker);
            }
          }
        });
    assertThat(reaching()).as("parameters that reach a function").isNotEmpty();
    assertThat(needless).as("changes no function reads, yet a new version is invoked").isEmpty();
  }

  @Test
  void aNewJar_reachesEveryInvoker() {
    for (StoreMode mode : StoreMode.values()) {
      for (Invoker invoker : invokers(base.get(mode))) {
        assertThat(runs(newJar.get(mode), invoker))
            .as("%s: what %s runs", newJar.get(mode).label(), invoker)
            .isNotEqualTo(runs(base.get(mode), invoker));
      }
    }
  }

  @Test
  void theScheduleInvokesThePollerThroughItsAlias_andTheOperatorsCommandsRunWhatItRuns() {
    List<Invoker> invokers = invokers(base.get(StoreMode.JDBC));
    assertThat(invokers)
        .filteredOn(i -> i.who().equals("rule PollerFunctionSchedule"))
        .containsExactly(new Invoker("rule PollerFunctionSchedule", "PollerFunction", "live"));
    assertThat(invokers)
        .filteredOn(i -> i.who().equals("output InvokePollerCommand"))
        .containsExactly(new Invoker("output InvokePollerCommand", "PollerFunction", "live"));
    assertThat(invokers)
        .filteredOn(i -> i.function().equals("DlqReprocessorFunction"))
        .extracting(Invoker::who)
        .containsExactlyInAnyOrder(
            "output DlqReprocessorFunctionName", "output InvokeReprocessorCommand");
  }

  /**
   * The poller's UpdateReplacePolicy (Retain) reaches every resource SAM makes of it; a change of
   * parameters must replace none of them but its version, or an old schedule rule or permission
   * would be kept beside the new one.
   */
  @Test
  void whatAParameterChangeReplaces_amongTheResourcesKeptOnReplacement_isOnlyTheVersion() {
    List<String> replaced = new ArrayList<>();
    forEachChange(
        (mode, parameter, before, after) ->
            after
                .stack()
                .resources()
                .forEach(
                    (id, resource) -> {
                      Object policy = after.translated.rawResource(id).get("UpdateReplacePolicy");
                      String type = String.valueOf(resource.get("Type"));
                      if ("Retain".equals(policy)
                          && before.stack().resources().containsKey(id)
                          && !type.equals("AWS::Lambda::Version")
                          && !createOnlyProperties(before, id)
                              .equals(createOnlyProperties(after, id))) {
                        replaced.add(after.label() + ": " + id + " (" + type + ")");
                      }
                    }));
    assertThat(replaced).isEmpty();
    Deploy deploy = base.get(StoreMode.JDBC);
    String version = versionBehind(deploy, new Invoker("schedule", "PollerFunction", "live"));
    assertThat(deploy.translated.rawResource(version))
        .as("the poller's version is kept when replaced and when removed")
        .containsEntry("UpdateReplacePolicy", "Retain")
        .containsEntry("DeletionPolicy", "Retain");
  }

  @Test
  void docsUpdating_listsExactlyTheParametersThatPublishNoVersion_andOnlyOutputsTheStackHas()
      throws Exception {
    String doc = Files.readString(PackagedFunction.projectRoot().resolve("docs/updating.md"));
    Matcher paragraph =
        Pattern.compile("\\*\\*Nothing else\\.\\*\\*(.*?)\\n- ", Pattern.DOTALL).matcher(doc);
    assertThat(paragraph.find()).as("docs/updating.md's \"Nothing else.\" item").isTrue();
    Set<String> listed = new TreeSet<>();
    Matcher code = Pattern.compile("`([A-Za-z]+)`").matcher(paragraph.group(1));
    while (code.find()) {
      if (TEMPLATE.parameters().containsKey(code.group(1))) {
        listed.add(code.group(1));
      }
    }
    Set<String> none = new TreeSet<>(TEMPLATE.parameters().keySet());
    none.removeAll(reaching());
    assertThat(listed).isEqualTo(none);

    Set<String> outputs = SamTemplate.map(TEMPLATE.raw().get("Outputs")).keySet();
    Matcher named = Pattern.compile("`([A-Z][A-Za-z]+(?:Command|Digest|Name))`").matcher(doc);
    while (named.find()) {
      assertThat(outputs).as("outputs named in docs/updating.md").contains(named.group(1));
    }
  }

  // ---- the configuration digest's handler, as CloudFormation calls it

  @Test
  void digestHandler_answersEachRequestAsCloudFormationReadsIt() {
    Deploy deploy = base.get(StoreMode.JDBC);
    Map<String, Object> properties = deploy.stack().properties("PollerConfiguration");
    Map<String, Object> changedProperties = new LinkedHashMap<>(properties);
    changedProperties.put("MaxRetries", "3");
    Map<String, Object> create = event("Create", properties, null);
    Map<String, Object> update = event("Update", changedProperties, "sha256-previous");
    update.put("OldResourceProperties", properties);
    Map<String, Object> delete = event("Delete", properties, "sha256-previous");
    Map<String, Object> broken = event("Create", properties, null);
    broken.remove("ResourceProperties");
    Map<String, Object> function = deploy.stack().properties("ConfigurationDigestFunction");
    List<SamTranslator.Answer> answers =
        SamTranslator.handle(
            String.valueOf(SamTemplate.map(function.get("Code")).get("ZipFile")),
            String.valueOf(function.get("Handler")),
            List.of(create, update, delete, broken));

    assertThat(answers)
        .allSatisfy(
            a -> {
              assertThat(a).as("an answer for every request").isNotNull();
              // An S3 presigned URL, signed for no content type: any other is refused.
              assertThat(a.method()).isEqualTo("PUT");
              assertThat(a.contentTypes()).allMatch(String::isEmpty);
              assertThat(a.body())
                  .containsEntry("StackId", create.get("StackId"))
                  .containsEntry("LogicalResourceId", "PollerConfiguration");
            });
    for (int i = 0; i < answers.size(); i++) {
      assertThat(answers.get(i).body().get("RequestId"))
          .isEqualTo(List.of(create, update, delete, broken).get(i).get("RequestId"));
    }
    String created = String.valueOf(answers.get(0).body().get("PhysicalResourceId"));
    assertThat(answers.get(0).body()).containsEntry("Status", "SUCCESS");
    assertThat(created).matches("sha256-[0-9a-f]{64}");
    assertThat(answers.get(1).body()).containsEntry("Status", "SUCCESS");
    assertThat(answers.get(1).body().get("PhysicalResourceId")).isNotIn(created, "sha256-previous");
    assertThat(answers.get(2).body())
        .containsEntry("Status", "SUCCESS")
        .containsEntry("PhysicalResourceId", "sha256-previous");
    assertThat(answers.get(3).body()).containsEntry("Status", "FAILED");
    assertThat(String.valueOf(answers.get(3).body().get("Reason")))
        .startsWith("cannot digest the configuration")
        .contains("ResourceProperties");
  }

  // ---- reading the deploys

  /** The parameters whose change, in either store mode, changes some function's properties. */
  private Set<String> reaching() {
    Set<String> reaching = new TreeSet<>();
    forEachChange(
        (mode, parameter, before, after) -> {
          if (!functionsChanged(before, after).isEmpty()) {
            reaching.add(parameter);
          }
        });
    return reaching;
  }

  /** A deploy with one parameter changed, against the first deploy of its store mode. */
  interface Change {
    void visit(StoreMode mode, String parameter, Deploy before, Deploy after);
  }

  private void forEachChange(Change change) {
    for (StoreMode mode : StoreMode.values()) {
      changed.get(mode).forEach((p, after) -> change.visit(mode, p, base.get(mode), after));
    }
  }

  /** The functions whose own properties differ between two deploys. */
  private Set<String> functionsChanged(Deploy before, Deploy after) {
    Set<String> functions = new TreeSet<>();
    for (String function : functions(before)) {
      if (!before.ownProperties(function).equals(after.ownProperties(function))) {
        functions.add(function);
      }
    }
    return functions;
  }

  private Set<String> functions(Deploy deploy) {
    return deploy.stack().resourcesOfType("AWS::Lambda::Function").keySet();
  }

  /** The schedule rules' targets and the outputs an operator invokes a function with. */
  private List<Invoker> invokers(Deploy deploy) {
    SamTemplate.Resolved stack = deploy.stack();
    Set<String> functions = functions(deploy);
    List<Invoker> invokers = new ArrayList<>();
    for (String rule : stack.resourcesOfType("AWS::Events::Rule").keySet()) {
      Object targets =
          SamTemplate.map(deploy.translated.rawResource(rule).get("Properties")).get("Targets");
      for (Object target : (List<?>) targets) {
        Map<String, Object> arn = SamTemplate.map(SamTemplate.map(target).get("Arn"));
        String id =
            arn.containsKey("Ref")
                ? String.valueOf(arn.get("Ref"))
                : String.valueOf(((List<?>) arn.get("Fn::GetAtt")).get(0));
        invokers.add(targetOf(deploy, "rule " + rule, id));
      }
    }
    stack
        .outputs()
        .forEach(
            (name, value) -> {
              for (String function : functions) {
                String ref = "arn-of-" + function;
                if (value.equals(ref)) {
                  invokers.add(new Invoker("output " + name, function, null));
                }
                Matcher m = FUNCTION_NAME_ARGUMENT.matcher(value);
                while (m.find()) {
                  if (m.group(1).equals(ref)) {
                    invokers.add(new Invoker("output " + name, function, null));
                  } else if (m.group(1).startsWith(ref + ":")) {
                    invokers.add(
                        new Invoker(
                            "output " + name, function, m.group(1).substring(ref.length() + 1)));
                  }
                }
              }
            });
    return invokers;
  }

  /** What a rule's target {@code id} (a function, or an alias of one) invokes. */
  private Invoker targetOf(Deploy deploy, String who, String id) {
    Map<String, Object> resource = deploy.stack().resources().get(id);
    assertThat(resource).as("%s's target %s", who, id).isNotNull();
    String type = String.valueOf(resource.get("Type"));
    if (type.equals("AWS::Lambda::Function")) {
      return new Invoker(who, id, null);
    }
    assertThat(type).as("%s's target %s", who, id).isEqualTo("AWS::Lambda::Alias");
    Map<String, Object> alias =
        SamTemplate.map(deploy.translated.rawResource(id).get("Properties"));
    String function = String.valueOf(SamTemplate.map(alias.get("FunctionName")).get("Ref"));
    return new Invoker(who, function, String.valueOf(deploy.stack().properties(id).get("Name")));
  }

  /**
   * What an invoker runs after this deploy: the function's $LATEST as the deploy leaves it, or the
   * version resource behind the alias and the properties that, changed, make CloudFormation replace
   * it (publish a new version).
   */
  private String runs(Deploy deploy, Invoker invoker) {
    if (invoker.alias() == null) {
      return "$LATEST " + deploy.stack().properties(invoker.function());
    }
    String version = versionBehind(deploy, invoker);
    return "version " + version + " " + createOnlyProperties(deploy, version);
  }

  private String versionBehind(Deploy deploy, Invoker invoker) {
    SamTemplate.Resolved stack = deploy.stack();
    for (String id : stack.resourcesOfType("AWS::Lambda::Alias").keySet()) {
      Map<String, Object> raw =
          SamTemplate.map(deploy.translated.rawResource(id).get("Properties"));
      if (invoker.function().equals(SamTemplate.map(raw.get("FunctionName")).get("Ref"))
          && invoker.alias().equals(stack.properties(id).get("Name"))) {
        Object getAtt = SamTemplate.map(raw.get("FunctionVersion")).get("Fn::GetAtt");
        assertThat(getAtt)
            .as("alias %s points at a version resource of the stack", id)
            .isInstanceOf(List.class);
        return String.valueOf(((List<?>) getAtt).get(0));
      }
    }
    throw new AssertionError(deploy.label() + ": no alias " + invoker);
  }

  private Map<String, Object> createOnlyProperties(Deploy deploy, String id) {
    Map<String, Object> resource = deploy.stack().resources().get(id);
    List<String> names = createOnly.get(String.valueOf(resource.get("Type")));
    assertThat(names).as("the create-only properties of %s", resource.get("Type")).isNotNull();
    return createOnlyProperties(resource, names);
  }

  private static Map<String, Object> createOnlyProperties(
      Map<String, Object> resource, List<String> names) {
    Map<String, Object> properties = SamTemplate.map(resource.get("Properties"));
    Map<String, Object> kept = new LinkedHashMap<>();
    for (String name : names) {
      if (properties.containsKey(name)) {
        kept.put(name, properties.get(name));
      }
    }
    return kept;
  }

  /**
   * Fills in each deploy's custom resources' physical ids as their handlers answer them: the
   * handler, an inline function of the stack, runs on the properties CloudFormation would send it.
   */
  private void answerCustomResources(List<Deploy> deploys) {
    Map<List<String>, List<Map<String, Object>>> eventsByCode = new LinkedHashMap<>();
    Map<List<String>, List<Deploy>> owners = new LinkedHashMap<>();
    for (Deploy deploy : deploys) {
      SamTemplate.Resolved stack = deploy.stack();
      for (Map.Entry<String, Map<String, Object>> e : stack.resources().entrySet()) {
        String type = String.valueOf(e.getValue().get("Type"));
        if (!type.startsWith("Custom::") && !type.equals("AWS::CloudFormation::CustomResource")) {
          continue;
        }
        Map<String, Object> properties = SamTemplate.map(e.getValue().get("Properties"));
        String token = String.valueOf(properties.get("ServiceToken"));
        assertThat(token).as("%s's ServiceToken", e.getKey()).matches("getatt-of-\\w+\\.Arn");
        Map<String, Object> handler =
            stack.properties(
                token.substring("getatt-of-".length(), token.length() - ".Arn".length()));
        List<String> code =
            List.of(
                String.valueOf(SamTemplate.map(handler.get("Code")).get("ZipFile")),
                String.valueOf(handler.get("Handler")));
        Map<String, Object> event = event("Create", properties, null);
        event.put("LogicalResourceId", e.getKey());
        event.put("ResourceType", type);
        eventsByCode.computeIfAbsent(code, c -> new ArrayList<>()).add(event);
        owners.computeIfAbsent(code, c -> new ArrayList<>()).add(deploy);
      }
    }
    eventsByCode.forEach(
        (code, events) -> {
          List<SamTranslator.Answer> answers =
              SamTranslator.handle(code.get(0), code.get(1), events);
          for (int i = 0; i < events.size(); i++) {
            Deploy owner = owners.get(code).get(i);
            Map<String, Object> body =
                Objects.requireNonNull(answers.get(i), owner.label() + ": no answer").body();
            assertThat(body.get("Status")).as("%s: %s", owner.label(), body).isEqualTo("SUCCESS");
            owner.answers.put(
                String.valueOf(events.get(i).get("LogicalResourceId")),
                String.valueOf(body.get("PhysicalResourceId")));
          }
        });
    // Resolved before the answers were in: resolve again.
    deploys.forEach(Deploy::forget);
  }

  private static Map<String, Object> event(
      String requestType, Map<String, Object> properties, String physicalId) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("RequestType", requestType);
    event.put(
        "StackId", "arn:aws:cloudformation:us-east-1:123456789012:stack/" + STACK + "/5f1c-0000");
    event.put("RequestId", java.util.UUID.randomUUID().toString());
    event.put("LogicalResourceId", "PollerConfiguration");
    event.put("ResourceType", "Custom::ConfigurationDigest");
    event.put("ResourceProperties", properties);
    if (physicalId != null) {
      event.put("PhysicalResourceId", physicalId);
    }
    return event;
  }

  // ---- the parameter values

  /** What a user gives in {@code mode}: the mode's own parameters and the other mode's too. */
  private static Map<String, String> baseParameters(StoreMode mode) {
    Map<String, String> values = new LinkedHashMap<>(SamTemplate.requiredParameters(mode));
    for (StoreMode other : StoreMode.values()) {
      SamTemplate.requiredParameters(other).forEach(values::putIfAbsent);
    }
    values.put("StoreMode", mode.value);
    values.put("ReprocessorReservedConcurrency", "2");
    return values;
  }

  private static String valueOf(
      Map<String, String> values, String name, Map<String, Object> definition) {
    String given = values.get(name);
    if (given != null) {
      return given;
    }
    Object fallback = definition.get("Default");
    assertThat(fallback).as("%s has a value or a default", name).isNotNull();
    return String.valueOf(fallback);
  }

  /** Another value the parameter accepts. */
  private static String changedValue(String name, Map<String, Object> definition, String current) {
    Object allowed = definition.get("AllowedValues");
    if (allowed != null) {
      return ((List<?>) allowed)
          .stream()
              .map(String::valueOf)
              .filter(v -> !v.equals(current))
              .findFirst()
              .orElseThrow(() -> new AssertionError(name + " allows one value only"));
    }
    String type = String.valueOf(definition.get("Type"));
    if (type.equals("Number")) {
      long value = Long.parseLong(current);
      Object max = definition.get("MaxValue");
      return String.valueOf(
          max != null && value + 1 > Long.parseLong(String.valueOf(max)) ? value - 1 : value + 1);
    }
    String candidate = SAMPLES.get(name);
    if (candidate == null || candidate.equals(current)) {
      boolean list = type.equals("CommaDelimitedList") || type.startsWith("List<");
      candidate = current.isEmpty() ? "changed" : current + (list ? ",changed" : "-changed");
    }
    Object pattern = definition.get("AllowedPattern");
    assertThat(
            pattern == null
                || Pattern.compile(String.valueOf(pattern)).matcher(candidate).matches())
        .as(
            "%s: %s is refused by its pattern; give this test a second value for it",
            name, candidate)
        .isTrue();
    return candidate;
  }

  /** The parameters a template fragment names by Ref or in a Sub. */
  private static Set<String> parameterRefs(Object node) {
    Set<String> names = new LinkedHashSet<>();
    if (node instanceof List<?> list) {
      list.forEach(item -> names.addAll(parameterRefs(item)));
    } else if (node instanceof Map<?, ?> map) {
      map.forEach(
          (key, value) -> {
            if ("Ref".equals(key) && TEMPLATE.parameters().containsKey(String.valueOf(value))) {
              names.add(String.valueOf(value));
            } else {
              names.addAll(parameterRefs(value));
            }
          });
    }
    return names;
  }
}
