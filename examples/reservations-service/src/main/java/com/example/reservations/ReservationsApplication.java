package com.example.reservations;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A reservations service: HTTP in, a reservation and its event committed together, the outbox
 * poller woken after the commit. Lambda Outbox comes from {@code outbox-spring}'s
 * auto-configuration and the {@code lambda-outbox.*} properties in {@code application.yml}.
 */
@SpringBootApplication
public class ReservationsApplication {
  public static void main(String[] args) {
    SpringApplication.run(ReservationsApplication.class, args);
  }
}
