package dev.lambdaoutbox.demo;

import dev.lambdaoutbox.testing.AwsEndpoint;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;

/**
 * The EventBridge route of the story: an event bus of the run's own, and a rule on it that forwards
 * every event the outbox puts there (its {@code Source}, {@code lambda-outbox}) to the shop's
 * second queue, as a consumer's stack would set it up. Removed on close.
 */
final class PaymentsBus implements AutoCloseable {
  static final String SOURCE = "lambda-outbox";
  private static final String RULE = "to-shop";
  private static final String TARGET = "shop-queue";

  private final EventBridgeClient events;
  private final String name;
  private final String arn;

  PaymentsBus(AwsEndpoint aws, String name, String queueArn) {
    this.events =
        aws.configure(EventBridgeClient.builder())
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .build();
    this.name = name;
    this.arn = events.createEventBus(r -> r.name(name)).eventBusArn();
    events.putRule(
        r -> r.eventBusName(name).name(RULE).eventPattern("{\"source\":[\"" + SOURCE + "\"]}"));
    events.putTargets(
        r -> r.eventBusName(name).rule(RULE).targets(t -> t.id(TARGET).arn(queueArn)));
  }

  /** The bus's ARN, as a route names it. */
  String arn() {
    return arn;
  }

  @Override
  public void close() {
    try {
      events.removeTargets(r -> r.eventBusName(name).rule(RULE).ids(TARGET));
      events.deleteRule(r -> r.eventBusName(name).name(RULE));
      events.deleteEventBus(r -> r.name(name));
    } catch (SdkException e) {
      // Best effort: a bus left behind is the demo's own, and named for this run.
    } finally {
      events.close();
    }
  }
}
