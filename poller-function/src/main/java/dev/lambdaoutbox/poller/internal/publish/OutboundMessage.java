package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.store.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A claimed row ready to send: its destination, its body (the payload exactly as written) and its
 * String message attributes (the outbox's own five, then the row's headers).
 *
 * @param sizeBytes what SNS and SQS count against their 256 KiB limit ({@link MessageSize}, the
 *     rule the writer refuses events by): the body's UTF-8 bytes plus, for each attribute, its
 *     name, its data type ({@code String}) and its value
 */
public record OutboundMessage(
    OutboxMessage row, String destination, Map<String, String> attributes, int sizeBytes) {

  /** SNS and SQS accept at most 256 KiB per message and per batch. */
  public static final int MAX_BYTES = MessageSize.MAX_BYTES;

  /** What FIFO accepts as a message group id: 1 to 128 printable ASCII characters, no space. */
  private static final Pattern GROUP_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  public OutboundMessage {
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  public static OutboundMessage of(OutboxMessage row, String destination) {
    Map<String, String> attributes =
        OutboxMessageAttributes.of(
            row.id(),
            row.eventType(),
            row.aggregateType(),
            row.aggregateId(),
            row.occurredAt(),
            row.headers());
    // A payload a claim returned cut counts at its stored size, so the row is refused as too large.
    long size =
        MessageSize.of(row.payload(), attributes) - Utf8.length(row.payload()) + row.payloadBytes();
    return new OutboundMessage(
        row, destination, attributes, (int) Math.min(size, Integer.MAX_VALUE));
  }

  public UUID id() {
    return row.id();
  }

  public String body() {
    return row.payload();
  }

  public boolean fifo() {
    return Destinations.isFifo(destination);
  }

  /**
   * The FIFO message group: the ordering key, {@code aggregateType:aggregateId}, so one aggregate's
   * events stay in order and two aggregate types sharing an id do not hold each other up. A key
   * that FIFO topics and queues would refuse (over 128 characters, or characters outside printable
   * ASCII) is replaced by its SHA-256 in hex (64 characters), which keeps one aggregate in one
   * group.
   */
  public String messageGroupId() {
    String key = row.aggregateType() + ":" + row.aggregateId();
    return GROUP_ID.matcher(key).matches() ? key : sha256(key);
  }

  /** The FIFO de-duplication id: the event id, so a republished row is dropped by the broker. */
  public String deduplicationId() {
    return row.id().toString();
  }

  public boolean tooLarge() {
    return sizeBytes > MAX_BYTES;
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "OutboundMessage[id="
        + row.id()
        + ", destination="
        + destination
        + ", bytes="
        + sizeBytes
        + "]";
  }
}
