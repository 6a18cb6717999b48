package dev.lambdaoutbox.template;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The stacks a user may deploy, as the docs tell them to, in which a function (or the application,
 * or a consumer) makes a given call: each way template.yaml offers to reach that resource. Every
 * one of them must allow the call. A topic the poller publishes to, for instance, may be the topic
 * the stack creates, an existing one listed in {@code PublishTopicArns}, or, when operators
 * replayed events to it, one listed in {@code ReplayDestinations} only; its key, the created
 * topic's {@code OutboxTopicKmsKey} or one of {@code PublishKmsKeyArns}.
 */
final class Deployments {
  /** Who makes the call in a deployment, and so which policies decide. */
  enum Caller {
    POLLER("PollerFunction"),
    REPROCESSOR("DlqReprocessorFunction"),
    /** The application's role, in the stack's account: the poller's resource policy decides. */
    APPLICATION(null),
    /**
     * The application's role in another account: its own policy ({@code WakeUpInvokerPolicy}) and
     * the poller's resource policy must both allow it.
     */
    APPLICATION_ELSEWHERE(null);

    final String function;

    Caller(String function) {
      this.function = function;
    }
  }

  /**
   * One stack: what it is, who calls, its parameters (the required ones included) and the values of
   * references to its resources (the created topic or bucket, the poller function), named as the
   * call names them.
   */
  record Deployment(
      String description, Caller caller, Map<String, String> parameters, Map<String, String> refs) {
    Deployment {
      parameters = new TreeMap<>(parameters);
      refs = new TreeMap<>(refs);
    }

    /** The application's role in this deployment. */
    String principal() {
      return parameters.get("WakeUpInvokerRoleArn");
    }

    @Override
    public String toString() {
      Map<String, String> given = new LinkedHashMap<>(parameters);
      SamTemplate.requiredParameters().forEach(given::remove);
      return caller + " in " + description + " " + given;
    }
  }

  static final String APPLICATION_ROLE = "arn:aws:iam::" + SamTemplate.ACCOUNT + ":role/outbox-app";
  static final String FOREIGN_APPLICATION_ROLE = "arn:aws:iam::210987654321:role/outbox-app";

  private Deployments() {}

  /**
   * The deployments in which {@code call} (made generic: {@link StackCall#generic}) is made; with
   * {@code replayed}, its destination is one operators replayed events to.
   */
  static List<Deployment> of(StackCall call, boolean replayed) {
    List<Deployment> all = new ArrayList<>();
    List<Caller> functions =
        switch (call.principal()) {
          case "poller" -> List.of(Caller.POLLER);
          case "reprocessor" -> List.of(Caller.REPROCESSOR);
          case "store" -> List.of(Caller.POLLER, Caller.REPROCESSOR);
          case "application" -> List.of(Caller.APPLICATION, Caller.APPLICATION_ELSEWHERE);
          default -> throw new IllegalArgumentException("no stack deploys " + call);
        };
    for (Caller caller : functions) {
      all.addAll(of(call, replayed, caller));
    }
    return all;
  }

  private static List<Deployment> of(StackCall call, boolean replayed, Caller caller) {
    List<Deployment> all = new ArrayList<>();
    String key = call.key();
    boolean inStackRegion = call.region().equals(SamTemplate.REGION);
    switch (call.kind()) {
      case PUBLISH -> {
        if (inStackRegion) {
          all.add(createdTopic("the topic the stack creates", call, caller, key));
        }
        all.add(listedTopic("an existing topic listed in PublishTopicArns", call, caller, key));
        if (replayed) {
          all.add(replayDestination(call, caller));
        }
      }
      case SEND -> {
        all.add(listedQueue("an existing queue listed in PublishQueueArns", call, caller, key));
        if (replayed) {
          all.add(replayDestination(call, caller));
        }
      }
      case PUT_EVENTS, DESCRIBE_BUS -> {
        all.add(
            deploy(
                "an event bus, the only destination",
                caller,
                Map.of(),
                "OutboxTopicType",
                "none",
                "DefaultDestination",
                call.resource(),
                "PublishEventBusArns",
                call.resource()));
        all.add(
            deploy(
                "an event bus routed to beside the created topic",
                caller,
                Map.of(),
                "PublishEventBusArns",
                call.resource()));
      }
      case PUT_OBJECT -> {
        if (key == null) {
          all.add(
              deploy(
                  "the claim-check bucket the stack creates",
                  caller,
                  refs("ClaimCheckPayloadBucket", call.bucket()),
                  "ClaimCheckBucket",
                  "Create",
                  "ClaimCheckPrefix",
                  call.prefix()));
        }
        all.add(
            deploy(
                "an existing claim-check bucket" + (key == null ? "" : " under a customer key"),
                caller,
                Map.of(),
                "ClaimCheckBucket",
                call.bucket(),
                "ClaimCheckPrefix",
                call.prefix(),
                "PublishKmsKeyArns",
                key));
      }
      case READ_TOPIC -> {
        all.add(replayDestination(call, caller));
        if (inStackRegion) {
          all.add(createdTopic("the created topic, ReplayDestinations empty", call, caller, null));
        }
        all.add(
            listedTopic(
                "a topic of PublishTopicArns, ReplayDestinations empty", call, caller, null));
      }
      case READ_QUEUE -> {
        all.add(replayDestination(call, caller));
        all.add(
            listedQueue(
                "a queue of PublishQueueArns, ReplayDestinations empty", call, caller, null));
      }
      case GET_SECRET ->
          all.add(
              deploy(
                  "the database secret" + (key == null ? "" : " under a customer key"),
                  caller,
                  Map.of(),
                  "DbSecretArn",
                  call.resource(),
                  "DbSecretKmsKeyArn",
                  key));
      case DATA_API ->
          all.add(
              deploy(
                  "the Data API"
                      + (call.secretKey() == null ? "" : ", its secret under a customer key"),
                  caller,
                  Map.of(),
                  "StoreMode",
                  "data-api",
                  "JdbcUrl",
                  "",
                  "SubnetIds",
                  "",
                  "SecurityGroupIds",
                  "",
                  "DataApiClusterArn",
                  call.resource(),
                  "DatabaseName",
                  "outbox",
                  "DbSecretArn",
                  call.secret(),
                  "DbSecretKmsKeyArn",
                  call.secretKey()));
      case INVOKE -> {
        String function = unqualified(call.resource());
        if (caller == Caller.POLLER) {
          all.add(
              deploy(
                  "a poller that scales out",
                  caller,
                  refs("PollerFunction.Arn", function),
                  "MaxConcurrentPollers",
                  "2",
                  "PollerReservedConcurrency",
                  "2"));
        } else {
          all.add(
              deploy(
                  caller == Caller.APPLICATION
                      ? "wake-ups by a role of the stack's account"
                      : "wake-ups by a role of another account",
                  caller,
                  refs("PollerFunctionAliaslive", function + ":live"),
                  "WakeUpInvokerRoleArn",
                  caller == Caller.APPLICATION ? APPLICATION_ROLE : FOREIGN_APPLICATION_ROLE));
        }
      }
      case GET_OBJECT ->
          throw new IllegalArgumentException(
              "a payload is read by consumers, outside the stack: " + call);
    }
    return all;
  }

  /** The call's topic as the one the stack creates, under {@code key} when not null. */
  private static Deployment createdTopic(
      String description, StackCall call, Caller caller, String key) {
    return deploy(
        description,
        caller,
        refs("OutboxTopic", call.resource()),
        "OutboxTopicType",
        call.fifo() ? "fifo" : "standard",
        "OutboxTopicKmsKey",
        key);
  }

  /** The call's topic as the stack's only destination, listed in PublishTopicArns. */
  private static Deployment listedTopic(
      String description, StackCall call, Caller caller, String key) {
    return listed(description, call, caller, call.resource(), "PublishTopicArns", key);
  }

  /** The call's queue as the stack's only destination, listed in PublishQueueArns. */
  private static Deployment listedQueue(
      String description, StackCall call, Caller caller, String key) {
    return listed(description, call, caller, call.queueUrl(), "PublishQueueArns", key);
  }

  private static Deployment listed(
      String description,
      StackCall call,
      Caller caller,
      String destination,
      String list,
      String key) {
    return deploy(
        description,
        caller,
        Map.of(),
        "OutboxTopicType",
        "none",
        "DefaultDestination",
        destination,
        list,
        call.resource(),
        "PublishKmsKeyArns",
        key);
  }

  /** A destination in ReplayDestinations only, beside the created topic. */
  private static Deployment replayDestination(StackCall call, Caller caller) {
    return deploy(
        "a destination listed in ReplayDestinations only",
        caller,
        Map.of(),
        "ReplayDestinations",
        call.resource(),
        "PublishKmsKeyArns",
        call.key());
  }

  private static String unqualified(String functionArn) {
    String[] parts = functionArn.split(":");
    return String.join(":", List.of(parts).subList(0, 7));
  }

  private static Map<String, String> refs(String name, String value) {
    return Map.of(name, value);
  }

  /**
   * The required parameters, and {@code more} as name, value pairs (a null value left out); the
   * stack's own resources (and their ARNs, for the policies that name them) named as CloudFormation
   * would name them, but for those in {@code refs}.
   */
  private static Deployment deploy(
      String description, Caller caller, Map<String, String> refs, String... more) {
    Map<String, String> parameters = new LinkedHashMap<>(SamTemplate.requiredParameters());
    for (int i = 0; i < more.length; i += 2) {
      if (more[i + 1] != null) {
        parameters.put(more[i], more[i + 1]);
      }
    }
    parameters.values().removeIf(String::isEmpty);
    Map<String, String> named = new LinkedHashMap<>();
    String prefix = "arn:aws:sns:" + SamTemplate.REGION + ":" + SamTemplate.ACCOUNT + ":";
    named.put(
        "OutboxTopic",
        prefix
            + "outbox-outbox"
            + ("fifo".equals(parameters.get("OutboxTopicType")) ? ".fifo" : ""));
    named.put("ClaimCheckPayloadBucket", "outbox-claimcheckpayloadbucket-1a2b3c4d5e6f");
    named.put("PollerFunction.Arn", POLLER_FUNCTION);
    named.put("PollerFunctionAliaslive", POLLER_FUNCTION + ":live");
    for (String logGroup :
        List.of("PollerLogGroup", "DlqReprocessorLogGroup", "ConfigurationDigestLogGroup")) {
      named.put(
          logGroup + ".Arn",
          "arn:aws:logs:"
              + SamTemplate.REGION
              + ":"
              + SamTemplate.ACCOUNT
              + ":log-group:outbox-"
              + logGroup
              + "-1A2B3C4D5E6F:*");
    }
    named.put(
        "AsyncFailureQueue.Arn",
        "arn:aws:sqs:"
            + SamTemplate.REGION
            + ":"
            + SamTemplate.ACCOUNT
            + ":outbox-AsyncFailureQueue-1A2B3C4D5E6F");
    named.putAll(refs);
    if (refs.containsKey("PollerFunction.Arn")) {
      named.put("PollerFunctionAliaslive", refs.get("PollerFunction.Arn") + ":live");
    }
    return new Deployment(description, caller, parameters, named);
  }

  /** The poller function's ARN, as CloudFormation names it in a stack {@code outbox}. */
  private static final String POLLER_FUNCTION =
      "arn:aws:lambda:"
          + SamTemplate.REGION
          + ":"
          + SamTemplate.ACCOUNT
          + ":function:outbox-PollerFunction-1A2B3C4D5E6F";
}
