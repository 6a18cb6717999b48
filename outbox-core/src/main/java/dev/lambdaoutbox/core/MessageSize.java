package dev.lambdaoutbox.core;

import java.util.Map;

/**
 * The one size rule of the outbox, as SNS and SQS count a message against their 256 KiB limit: the
 * body's UTF-8 bytes, plus for each message attribute the UTF-8 bytes of its name, of its data type
 * ({@code String}) and of its value. The writer refuses an event whose message would be larger than
 * {@link #MAX_BYTES}; the poller measures every message it sends with the same rule.
 */
public final class MessageSize {
  /** SNS and SQS accept at most 256 KiB per message (and per batch call). */
  public static final int MAX_BYTES = 256 * 1024;

  /**
   * The largest payload the outbox stores at all, in UTF-8 bytes: what MariaDB's and MySQL's {@code
   * mediumtext} payload column holds (16 MiB less one byte; PostgreSQL's {@code text} holds more).
   * A payload over {@link #MAX_BYTES} reaches its destination only through the poller's claim check
   * (an S3 object and a pointer to it); the writer accepts one only when the application raises its
   * limit ({@code OutboxWriter.Builder.maxPayloadBytes}).
   */
  public static final int MAX_STORED_PAYLOAD_BYTES = 16 * 1024 * 1024 - 1;

  /**
   * What a claim-check pointer message takes beside the attributes, at most: the pointer's JSON
   * with a bucket name of 63 characters and a key of 1,024 bytes, and the {@code
   * ExtendedPayloadSize} attribute.
   */
  public static final int POINTER_ALLOWANCE_BYTES = 1_280;

  /** The data type of every attribute the outbox sends. */
  public static final String STRING_TYPE = "String";

  private MessageSize() {}

  /** The size of a message with this body and these String attributes. */
  public static long of(String body, Map<String, String> attributes) {
    long bytes = Utf8.length(body);
    for (Map.Entry<String, String> a : attributes.entrySet()) {
      bytes += Utf8.length(a.getKey()) + STRING_TYPE.length() + Utf8.length(a.getValue());
    }
    return bytes;
  }
}
