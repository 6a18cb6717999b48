package com.example.reservations;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /reservations {"shopId": "sushi-ya", "guests": 2}}. */
@RestController
public class ReservationController {
  private final ReservationService reservations;

  public ReservationController(ReservationService reservations) {
    this.reservations = reservations;
  }

  /** What a client asks for. */
  public record Request(String shopId, int guests) {}

  @PostMapping("/reservations")
  public ResponseEntity<Reservation> reserve(
      @RequestBody Request request,
      @RequestHeader(name = "traceparent", required = false) String traceparent) {
    if (request.shopId() == null || request.shopId().isBlank() || request.guests() < 1) {
      return ResponseEntity.badRequest().build();
    }
    Reservation reservation = reservations.reserve(request.shopId(), request.guests(), traceparent);
    return ResponseEntity.created(URI.create("/reservations/" + reservation.id()))
        .body(reservation);
  }

  @ExceptionHandler(ShopFullException.class)
  public ResponseEntity<Map<String, String>> full(ShopFullException e) {
    return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", e.getMessage()));
  }
}
