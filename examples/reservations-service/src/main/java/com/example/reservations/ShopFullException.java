package com.example.reservations;

/** The shop has not enough seats left; thrown inside the transaction, it rolls it back. */
public class ShopFullException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ShopFullException(String shopId, int seatsLeft) {
    super("shop " + shopId + " has " + Math.max(0, seatsLeft) + " seats left");
  }
}
