package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.Rows;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BatchReconcilerTest {
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/q";

  private final OutboundMessage a = Rows.message(QUEUE, 10);
  private final OutboundMessage b = Rows.message(QUEUE, 10);
  private final OutboundMessage c = Rows.message(QUEUE, 10);

  @Test
  void reconcile_matchesEachEntryById() {
    BatchResponse response =
        new BatchResponse(
            Set.of(a.id().toString(), c.id().toString()),
            Map.of(
                b.id().toString(),
                new BatchResponse.EntryError("InvalidParameterValue", "bad body", true)));

    List<Delivery> deliveries = BatchReconciler.reconcile(List.of(a, b, c), response);

    assertThat(deliveries)
        .containsExactly(
            new Delivery.Sent(a.id()),
            new Delivery.Failed(b.id(), Failure.permanent("InvalidParameterValue", "bad body")),
            new Delivery.Sent(c.id()));
  }

  @Test
  void reconcile_anEntryInNeitherList_isATransientFailure_neverASuccess() {
    BatchResponse response = new BatchResponse(Set.of(a.id().toString()), Map.of());

    List<Delivery> deliveries = BatchReconciler.reconcile(List.of(a, b), response);

    assertThat(deliveries.get(0)).isEqualTo(new Delivery.Sent(a.id()));
    assertThat(deliveries.get(1))
        .isInstanceOfSatisfying(
            Delivery.Failed.class,
            f -> {
              assertThat(f.failure().code()).isEqualTo(Codes.MISSING_FROM_RESPONSE);
              assertThat(f.failure().permanent()).isFalse();
            });
  }

  @Test
  void reconcile_anEntryInBothLists_countsAsFailed() {
    BatchResponse response =
        new BatchResponse(
            Set.of(a.id().toString()),
            Map.of(a.id().toString(), new BatchResponse.EntryError("InternalError", "?", false)));

    assertThat(BatchReconciler.reconcile(List.of(a), response).get(0))
        .isInstanceOf(Delivery.Failed.class);
  }

  @Test
  void reconcile_oneEntryThrottledWhileOthersWentThrough_isTheDestinationBusy_noRetrySpent() {
    BatchResponse response =
        new BatchResponse(
            Set.of(a.id().toString(), c.id().toString()),
            Map.of(b.id().toString(), new BatchResponse.EntryError("Throttling", "slow", false)));

    assertThat(BatchReconciler.reconcile(List.of(a, b, c), response).get(1))
        .isInstanceOfSatisfying(
            Delivery.Failed.class,
            f -> {
              assertThat(f.failure().scope()).isEqualTo(Failure.Scope.DESTINATION_BUSY);
              assertThat(f.failure().permanent()).isFalse();
              assertThat(f.failure().throttled()).isTrue();
            });
  }

  @Test
  void reconcile_anEmptyResponseTo200_isTheDestinationUnavailable_noRetrySpent() {
    List<Delivery> deliveries =
        BatchReconciler.reconcile(List.of(a, b, c), new BatchResponse(Set.of(), Map.of()));

    assertThat(deliveries)
        .allSatisfy(
            d ->
                assertThat(d)
                    .isInstanceOfSatisfying(
                        Delivery.Failed.class,
                        f ->
                            assertThat(f.failure().scope())
                                .isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE)));
  }

  @Test
  void reconcile_everyEntryThrottled_isTheDestinationUnavailable() {
    BatchResponse response =
        new BatchResponse(
            Set.of(),
            Map.of(
                a.id().toString(), new BatchResponse.EntryError("Throttling", "slow", false),
                b.id().toString(), new BatchResponse.EntryError("InternalError", "oops", false)));

    assertThat(BatchReconciler.reconcile(List.of(a, b), response))
        .allSatisfy(
            d ->
                assertThat(((Delivery.Failed) d).failure().scope())
                    .isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE));
  }

  @Test
  void reconcile_everyEntryRefusedForKms_isTheDestinationMisconfigured() {
    BatchResponse response =
        new BatchResponse(
            Set.of(),
            Map.of(
                a.id().toString(), new BatchResponse.EntryError("KmsDisabled", "off", true),
                b.id().toString(), new BatchResponse.EntryError("KmsDisabled", "off", true)));

    assertThat(BatchReconciler.reconcile(List.of(a, b), response))
        .allSatisfy(
            d ->
                assertThat(((Delivery.Failed) d).failure().scope())
                    .isEqualTo(Failure.Scope.DESTINATION_MISCONFIGURED));
  }

  @Test
  void
      reconcile_noEntryThrough_aMessageLevelCodeStaysThatMessagesOwn_theOthersAreTheDestinations() {
    BatchResponse response =
        new BatchResponse(
            Set.of(),
            Map.of(
                a.id().toString(),
                new BatchResponse.EntryError("InvalidMessageContents", "bad char", true),
                b.id().toString(),
                new BatchResponse.EntryError("InternalError", "oops", false)));

    List<Delivery> deliveries = BatchReconciler.reconcile(List.of(a, b), response);

    assertThat(((Delivery.Failed) deliveries.get(0)).failure())
        .isEqualTo(Failure.permanent("InvalidMessageContents", "bad char"));
    assertThat(((Delivery.Failed) deliveries.get(1)).failure().scope())
        .isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
  }
}
