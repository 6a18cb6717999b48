package dev.lambdaoutbox.reprocessor.internal.request;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.AuditRequest;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The {@code audit} request as the parser reads it: what it accepts and what it makes of it. */
class RequestParserAuditTest {
  private static final String ID = "0195a3c4-8f21-7b9e-a4d2-3c51e0f7b812";

  private static AuditRequest parse(String json) {
    return (AuditRequest) RequestParser.parse(json.getBytes(UTF_8));
  }

  @Test
  void auditWithoutFilter_isEveryEntry_fiftyAPage_fromTheNewest() {
    AuditRequest request = parse("{\"action\":\"audit\"}");

    assertThat(request.filter()).isEqualTo(AuditFilter.all());
    assertThat(request.limit()).isEqualTo(RequestParser.DEFAULT_AUDIT_LIMIT).isEqualTo(50);
    assertThat(request.cursor()).isNull();
    assertThat(request.requestedBy()).isNull();
  }

  @Test
  void everyCriterion_isRead_theActionInEitherCase_timesWithTheirOffset() {
    AuditRequest request =
        parse(
            "{\"action\":\"audit\",\"requestedBy\":\"carol\",\"limit\":10,\"filter\":{"
                + "\"deadLetterId\":\""
                + ID.toUpperCase()
                + "\",\"requestedBy\":\"alice@example.com\",\"requestId\":\"req-7\","
                + "\"action\":\"replay\",\"from\":\"2026-03-01T01:00:00+01:00\","
                + "\"to\":\"2026-03-02T00:00:00Z\"}}");

    assertThat(request.filter())
        .isEqualTo(
            AuditFilter.builder()
                .deadLetterId(UUID.fromString(ID))
                .requestedBy("alice@example.com")
                .requestId("req-7")
                .action(AuditEntry.REPLAY)
                .from(Instant.parse("2026-03-01T00:00:00Z"))
                .to(Instant.parse("2026-03-02T00:00:00Z"))
                .build());
    assertThat(request.limit()).isEqualTo(10);
    assertThat(request.requestedBy()).isEqualTo("carol");
  }

  @Test
  void theCursorOfAnAuditPage_isTakenBack() {
    String token = new AuditCursor(12345).encode();

    assertThat(parse("{\"action\":\"audit\",\"cursor\":\"" + token + "\"}").cursor())
        .isEqualTo(new AuditCursor(12345));
  }

  @Test
  void anUnknownAuditedAction_isRefused_suggestingTheOneMeant() {
    assertThatThrownBy(() -> parse("{\"action\":\"audit\",\"filter\":{\"action\":\"discrad\"}}"))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo("filter.action");
              assertThat(e.problem()).contains("did you mean 'DISCARD'?", "DISCARD, REDRIVE");
            });
  }

  @Test
  void aFieldOfTheListingFilter_isRefused_listingTheAuditFiltersFields() {
    assertThatThrownBy(() -> parse("{\"action\":\"audit\",\"filter\":{\"deadAtFrom\":\"x\"}}"))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo("filter.deadAtFrom");
              assertThat(e.problem())
                  .contains("action, deadLetterId, from, requestId, requestedBy, to");
            });
  }

  @Test
  void theActionsAreNamedWhenNoneIsGiven() {
    assertThatThrownBy(() -> RequestParser.parse("{}".getBytes(UTF_8)))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> assertThat(e.problem()).contains("\"audit\"", "\"list\""));
  }
}
