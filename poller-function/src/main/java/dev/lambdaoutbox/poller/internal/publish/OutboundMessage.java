package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.core.ClaimCheckFormat;
import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * A claimed row ready to send: its destination, its body (the payload exactly as written) and its
 * String message attributes (the outbox's own five, then the row's headers); for an EventBridge
 * bus, the entry's Source ({@code eventSource}), DetailType (the event type), Detail (the payload)
 * and Time (when the event occurred). With a {@code pointer} (the claim check stored the payload in
 * S3), the body or Detail is the pointer instead ({@link PayloadPointer}), and an SNS or SQS
 * message carries the Number attribute {@value ClaimCheckFormat#SIZE_ATTRIBUTE} besides.
 *
 * @param sizeBytes what its destination counts against its limit ({@link DestinationKind}): for SNS
 *     and SQS ({@link MessageSize}, the rule the writer refuses events by) the body's UTF-8 bytes
 *     plus, for each attribute, its name, its data type ({@code String}) and its value; for
 *     EventBridge the UTF-8 bytes of Source, DetailType and Detail, plus 14 for Time
 * @param pointer where the claim check stored the payload, or null when the message carries it
 * @param maxBytes the largest entry its destination takes: SNS's and SQS's quota, or for an
 *     EventBridge bus what the bus's targets take ({@code OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES})
 */
public record OutboundMessage(
    OutboxMessage row,
    String destination,
    Map<String, String> attributes,
    String eventSource,
    int sizeBytes,
    PayloadPointer pointer,
    int maxBytes) {

  /**
   * The largest payload the outbox carries, whatever the destination: the writer refuses more, and
   * a claim cuts a longer payload (written by SQL) just past it, so such a row is never sent.
   */
  public static final int MAX_PAYLOAD_BYTES = MessageSize.MAX_BYTES;

  /** The header whose value becomes an EventBridge entry's TraceHeader (an X-Ray trace header). */
  public static final String TRACE_HEADER = "X-Amzn-Trace-Id";

  /** What EventBridge counts for an entry's Time. */
  static final int TIME_BYTES = 14;

  /**
   * The largest entry put on a bus unless told otherwise: what SNS and Step Functions, as a rule's
   * targets, take ({@code OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES}' default).
   */
  public static final int DEFAULT_BUS_ENTRY_BYTES = 256 * 1024;

  /**
   * The most a Detail keeps of an offloaded payload's matchable fields ({@link MatchableFields}).
   */
  public static final int MAX_DETAIL_FIELDS_BYTES = 8 * 1024;

  /** What FIFO accepts as a message group id: 1 to 128 printable ASCII characters, no space. */
  private static final Pattern GROUP_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  public OutboundMessage {
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  /**
   * The message for {@code row} at {@code destination}, events on a bus with the default source.
   */
  public static OutboundMessage of(OutboxMessage row, String destination) {
    return of(row, destination, EventSource.DEFAULT);
  }

  /** The message for {@code row} at {@code destination}; {@code eventSource} for a bus. */
  public static OutboundMessage of(OutboxMessage row, String destination, String eventSource) {
    return of(row, destination, eventSource, DEFAULT_BUS_ENTRY_BYTES);
  }

  /**
   * The message for {@code row} at {@code destination}; for a bus, with {@code eventSource}, and
   * held to {@code busMaxEntryBytes}.
   */
  public static OutboundMessage of(
      OutboxMessage row, String destination, String eventSource, int busMaxEntryBytes) {
    Map<String, String> attributes =
        OutboxMessageAttributes.of(
            row.eventId(),
            row.eventType(),
            row.aggregateType(),
            row.aggregateId(),
            row.occurredAt(),
            row.headers());
    // A payload a claim returned cut counts at its stored size, so the row is refused as too large.
    long payloadBytes = row.payloadBytes();
    long size =
        DestinationKind.of(destination) == DestinationKind.EVENT_BUS
            ? (long) Utf8.length(eventSource)
                + Utf8.length(row.eventType())
                + payloadBytes
                + TIME_BYTES
            : MessageSize.of(row.payload(), attributes) - Utf8.length(row.payload()) + payloadBytes;
    DestinationKind kind = DestinationKind.of(destination);
    return new OutboundMessage(
        row,
        destination,
        attributes,
        eventSource,
        (int) Math.min(size, Integer.MAX_VALUE),
        null,
        kind == DestinationKind.EVENT_BUS ? busMaxEntryBytes : kind.maxBytes());
  }

  /**
   * This message carrying {@code pointer} instead of {@code payload} (the whole payload), measured
   * again; on a bus, its Detail keeps as many of the payload's {@linkplain MatchableFields
   * matchable fields} as fit {@link #MAX_DETAIL_FIELDS_BYTES} and the entry's limit.
   */
  public OutboundMessage withPointer(PayloadPointer pointer, String payload) {
    if (kind() != DestinationKind.EVENT_BUS) {
      return withPointer(pointer);
    }
    long room =
        (long) maxBytes
            - Utf8.length(eventSource)
            - Utf8.length(row.eventType())
            - Utf8.length(pointer.eventDetail())
            - TIME_BYTES
            - 1; // the comma before the fields
    int budget = (int) Math.max(0, Math.min(MAX_DETAIL_FIELDS_BYTES, room));
    return withPointer(pointer.withDetailFields(MatchableFields.of(payload, budget)));
  }

  /** This message carrying {@code pointer} instead of its payload, measured again. */
  public OutboundMessage withPointer(PayloadPointer pointer) {
    long size =
        kind() == DestinationKind.EVENT_BUS
            ? (long) Utf8.length(eventSource)
                + Utf8.length(row.eventType())
                + Utf8.length(pointer.eventDetail())
                + TIME_BYTES
            : MessageSize.of(pointer.messageBody(), attributes) + pointer.sizeAttributeBytes();
    return new OutboundMessage(
        row,
        destination,
        attributes,
        eventSource,
        (int) Math.min(size, Integer.MAX_VALUE),
        pointer,
        maxBytes);
  }

  public DestinationKind kind() {
    return DestinationKind.of(destination);
  }

  /** The most a batch call to its destination may carry in all. */
  public int batchMaxBytes() {
    return kind().maxBytes();
  }

  public UUID id() {
    return row.id();
  }

  /** The body (SNS, SQS) or Detail (EventBridge): the payload, or the pointer to it. */
  public String body() {
    if (pointer == null) {
      return row.payload();
    }
    return kind() == DestinationKind.EVENT_BUS ? pointer.eventDetail() : pointer.messageBody();
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
    return row.eventId().toString();
  }

  /**
   * Over its destination's limit, or its payload over the outbox's own (cut by the claim); a
   * pointer message only when the pointer and the attributes are over the limit.
   */
  public boolean tooLarge() {
    return sizeBytes > maxBytes
        || (pointer == null && payloadOverOutboxLimit())
        || noRoomForSizeAttribute();
  }

  /** Why it is too large, naming the limit; null when it is not. */
  public String tooLargeReason() {
    if (noRoomForSizeAttribute()) {
      return "the claim check adds the message attribute "
          + ClaimCheckFormat.SIZE_ATTRIBUTE
          + ", and the message already has "
          + attributes.size()
          + " (the outbox's five and "
          + (attributes.size() - 5)
          + " headers); "
          + kind().service()
          + " accepts at most "
          + OutboxMessageAttributes.MAX_ATTRIBUTES
          + ": write events that may be stored in S3 with at most "
          + (OutboxMessageAttributes.MAX_HEADERS - 1)
          + " headers";
    }
    if (pointer == null && payloadOverOutboxLimit()) {
      return "the message has "
          + row.payloadBytes()
          + " bytes of payload; without a claim-check bucket (OUTBOX_CLAIM_CHECK_BUCKET) the"
          + " outbox carries payloads of at most "
          + MAX_PAYLOAD_BYTES
          + " bytes (256 KiB) to any destination; a claim-check bucket would carry it as an S3"
          + " object";
    }
    if (sizeBytes > maxBytes) {
      return "the message has "
          + sizeBytes
          + " bytes ("
          + (kind() == DestinationKind.EVENT_BUS
              ? "Source, DetailType, Detail and Time"
              : pointer == null ? "payload and attributes" : "claim-check pointer and attributes")
          + "); "
          + (kind() == DestinationKind.EVENT_BUS
              ? "entries put on a bus are held to "
                  + maxBytes
                  + " bytes, what its rules' targets take (OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES)"
              : kind().service() + " accepts at most " + maxBytes)
          + (pointer == null
              ? "; a claim-check bucket (OUTBOX_CLAIM_CHECK_BUCKET) would carry it as an S3 object"
              : "");
    }
    return null;
  }

  /**
   * Whether this pointer message to SNS or SQS would carry more message attributes than they
   * accept: the pointer's size attribute besides the outbox's five and five headers.
   */
  private boolean noRoomForSizeAttribute() {
    return pointer != null
        && kind() != DestinationKind.EVENT_BUS
        && attributes.size() >= OutboxMessageAttributes.MAX_ATTRIBUTES;
  }

  /**
   * Whether the payload, as stored, is larger than any the outbox carries: so is every payload a
   * claim returned cut, which is never sent.
   */
  private boolean payloadOverOutboxLimit() {
    return row.payloadBytes() > MAX_PAYLOAD_BYTES;
  }

  /**
   * The message attributes SNS and SQS carry, each made by {@code attribute} from its data type and
   * value: the String attributes, and a pointer's size as the Number attribute {@value
   * ClaimCheckFormat#SIZE_ATTRIBUTE}. The rules keep both size attributes' names out of the
   * headers; were one there, it would be left out, so that only the claim check marks a pointer.
   */
  public <V> Map<String, V> typedAttributes(BiFunction<String, String, V> attribute) {
    Map<String, V> values = new LinkedHashMap<>();
    attributes.forEach(
        (name, value) -> {
          if (!ClaimCheckFormat.SIZE_ATTRIBUTES.contains(name)) {
            values.put(name, attribute.apply("String", value));
          }
        });
    if (pointer != null) {
      values.put(
          ClaimCheckFormat.SIZE_ATTRIBUTE,
          attribute.apply(
              ClaimCheckFormat.SIZE_ATTRIBUTE_TYPE, Long.toString(pointer.sizeBytes())));
    }
    return values;
  }

  /** Whether the payload is a JSON object, as an EventBridge entry's Detail must be. */
  public boolean payloadIsJsonObject() {
    String payload = row.payload();
    for (int i = 0; i < payload.length(); i++) {
      char c = payload.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return c == '{';
      }
    }
    return false;
  }

  /** The row's X-Ray trace header ({@value #TRACE_HEADER}), or null. */
  public String traceHeader() {
    return row.headers().get(TRACE_HEADER);
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
        + (pointer == null ? "" : ", pointer=s3://" + pointer.bucket() + "/" + pointer.key())
        + "]";
  }
}
