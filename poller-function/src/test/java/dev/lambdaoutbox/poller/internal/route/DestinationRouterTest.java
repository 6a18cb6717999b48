package dev.lambdaoutbox.poller.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.Rows;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DestinationRouterTest {
  private static final String RESERVATIONS = "arn:aws:sns:us-east-1:123456789012:reservations";
  private static final String CANCELLATIONS =
      "arn:aws:sns:us-east-1:123456789012:reservation-cancellations";
  private static final String PAYMENTS_FAILED =
      "https://sqs.us-east-1.amazonaws.com/123456789012/payments-failed";
  private static final String FALLBACK = "arn:aws:sns:us-east-1:123456789012:everything";
  private static final String OWN = "https://sqs.us-east-1.amazonaws.com/123456789012/own";

  private final DestinationRouter router = new DestinationRouter(routes(), Optional.of(FALLBACK));

  private static Map<String, String> routes() {
    Map<String, String> routes = new LinkedHashMap<>();
    routes.put("reservation.*", RESERVATIONS);
    routes.put("reservation.cancel*", CANCELLATIONS);
    routes.put("payment.failed", PAYMENTS_FAILED);
    routes.put("payment.*", RESERVATIONS);
    return routes;
  }

  @Test
  void route_rowDestinationBeatsEveryRoute() {
    var row =
        Rows.row(UUID.randomUUID(), "payment", "p-1", "payment.failed", "{}", Map.of(), OWN, 0);

    assertThat(router.route(row)).contains(OWN);
  }

  @Test
  void routeEventType_exactMatchBeatsWildcard() {
    assertThat(router.routeEventType("payment.failed")).contains(PAYMENTS_FAILED);
    assertThat(router.routeEventType("payment.settled")).contains(RESERVATIONS);
  }

  @Test
  void routeEventType_longestWildcardPrefixWins_whateverTheOrderGiven() {
    assertThat(router.routeEventType("reservation.cancelled")).contains(CANCELLATIONS);
    assertThat(router.routeEventType("reservation.created")).contains(RESERVATIONS);
  }

  @Test
  void routeEventType_noMatch_fallsBackToDefault_orNothing() {
    assertThat(router.routeEventType("shipment.sent")).contains(FALLBACK);
    assertThat(new DestinationRouter(routes(), Optional.empty()).routeEventType("shipment.sent"))
        .isEmpty();
  }

  @Test
  void routeEventType_wildcardIsAPrefixNotASegmentMatch() {
    assertThat(router.routeEventType("reservation.")).contains(RESERVATIONS);
    assertThat(router.routeEventType("reservations.created")).contains(FALLBACK);
  }

  @Test
  void routeEventType_loneStarMatchesEverything() {
    DestinationRouter all = new DestinationRouter(Map.of("*", OWN), Optional.of(FALLBACK));

    assertThat(all.routeEventType("anything.at.all")).contains(OWN);
  }
}
