package com.example.reservations;

/** A table for {@code guests} at {@code shopId}; also the payload of its events. */
public record Reservation(String id, String shopId, int guests) {}
