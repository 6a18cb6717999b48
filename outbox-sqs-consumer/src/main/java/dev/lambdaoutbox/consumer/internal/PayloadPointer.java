package dev.lambdaoutbox.consumer.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.ClaimCheckFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A claim check: the message body that stands for a payload stored in S3, in the shape AWS's
 * payload-offloading library writes it (the SQS and SNS Extended Client Libraries; {@link
 * ClaimCheckFormat}), so either side reads the other's messages.
 *
 * <p>As in the Extended Client Library, the attribute decides: a message without it is never a
 * pointer, whatever its body, so a payload that happens to look like one is handed over as written.
 *
 * @param bucket the S3 bucket holding the payload
 * @param key the object's key
 * @param size the payload's size in UTF-8 bytes, as the attribute states it
 */
public record PayloadPointer(String bucket, String key, long size) {
  /** The attribute that marks a pointer and carries the payload's size. */
  public static final String SIZE_ATTRIBUTE = ClaimCheckFormat.SIZE_ATTRIBUTE;

  /** The name older releases of the Extended Client Library used for the same attribute. */
  static final String LEGACY_SIZE_ATTRIBUTE = ClaimCheckFormat.LEGACY_SIZE_ATTRIBUTE;

  /** Both names, which a consumer removes from the headers it hands over. */
  public static final Set<String> SIZE_ATTRIBUTES = ClaimCheckFormat.SIZE_ATTRIBUTES;

  static final String POINTER_CLASS = ClaimCheckFormat.POINTER_CLASS;
  static final String LEGACY_POINTER_CLASS = "com.amazon.sqs.javamessaging.MessageS3Pointer";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code s3://bucket/key}, for messages. */
  public String location() {
    return "s3://" + bucket + "/" + key;
  }

  /**
   * The pointer a message carries, or empty when it carries none (no size attribute).
   *
   * @throws UnreadableRecordException when the size attribute is there but the body is not a
   *     pointer or the size is not a number
   */
  public static Optional<PayloadPointer> of(Map<String, String> attributes, String body) {
    String sizeName = attributes.containsKey(SIZE_ATTRIBUTE) ? SIZE_ATTRIBUTE : null;
    if (sizeName == null && attributes.containsKey(LEGACY_SIZE_ATTRIBUTE)) {
      sizeName = LEGACY_SIZE_ATTRIBUTE;
    }
    if (sizeName == null) {
      return Optional.empty();
    }
    long size;
    try {
      size = Long.parseLong(attributes.get(sizeName).strip());
    } catch (NumberFormatException e) {
      throw new UnreadableRecordException(
          sizeName + ": '" + attributes.get(sizeName) + "' is not a size in bytes", e);
    }
    JsonNode node;
    try {
      node = body == null ? null : JSON.readTree(body);
    } catch (JsonProcessingException e) {
      node = null;
    }
    boolean pointer =
        node != null
            && node.isArray()
            && node.size() == 2
            && Set.of(POINTER_CLASS, LEGACY_POINTER_CLASS).contains(node.get(0).asText())
            && node.get(1).path("s3BucketName").isTextual()
            && node.get(1).path("s3Key").isTextual();
    if (!pointer) {
      throw new UnreadableRecordException(
          "body: the message has the "
              + sizeName
              + " attribute of a payload stored in S3, but its body is not a payload pointer ["
              + "\""
              + POINTER_CLASS
              + "\",{\"s3BucketName\":...,\"s3Key\":...}]");
    }
    return Optional.of(
        new PayloadPointer(
            node.get(1).get("s3BucketName").asText(), node.get(1).get("s3Key").asText(), size));
  }
}
