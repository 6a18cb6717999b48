package dev.lambdaoutbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The wire format of the four publish calls {@link BrokerStandIn} answers, as AWS SDK for Java 2.x
 * (2.41) sends them: SQS {@code SendMessage} and {@code SendMessageBatch} in the AWS JSON 1.0
 * protocol ({@code X-Amz-Target: AmazonSQS.*}), SNS {@code Publish} and {@code PublishBatch} in the
 * AWS query protocol (a form-encoded {@code Action=...}, answered in XML). Every entry is accepted;
 * an SQS answer carries the MD5 digests of body and attributes that the SDK's checksum interceptor
 * checks.
 */
final class BrokerCalls {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SNS_NS = "http://sns.amazonaws.com/doc/2010-03-31/";

  private BrokerCalls() {}

  /** One message of a call: its entry id (null for a single publish) and its event id, if any. */
  record Entry(String id, String eventId) {}

  /** A parsed call: what it is, its messages, and how to answer it once accepted. */
  record Call(String action, List<Entry> entries, String contentType, byte[] answer) {}

  /** Parses a request and builds its answer; an action it does not know answers HTTP 400. */
  static Call parse(String amzTarget, byte[] body) throws IOException {
    if (amzTarget != null && amzTarget.startsWith("AmazonSQS.")) {
      return sqs(amzTarget.substring("AmazonSQS.".length()), JSON.readTree(body));
    }
    return sns(form(new String(body, StandardCharsets.UTF_8)));
  }

  private static Call sqs(String action, JsonNode request) throws IOException {
    ObjectNode answer = JSON.createObjectNode();
    List<Entry> entries = new ArrayList<>();
    switch (action) {
      case "SendMessage" -> {
        entries.add(new Entry(null, eventId(request.path("MessageAttributes"))));
        digests(request, answer.put("MessageId", UUID.randomUUID().toString()));
      }
      case "SendMessageBatch" -> {
        ArrayNode successful = answer.putArray("Successful");
        answer.putArray("Failed");
        for (JsonNode e : request.path("Entries")) {
          String id = e.path("Id").asText();
          entries.add(new Entry(id, eventId(e.path("MessageAttributes"))));
          digests(
              e,
              successful.addObject().put("Id", id).put("MessageId", UUID.randomUUID().toString()));
        }
      }
      default -> {
        return null;
      }
    }
    return new Call(action, entries, "application/x-amz-json-1.0", JSON.writeValueAsBytes(answer));
  }

  private static String eventId(JsonNode attributes) {
    JsonNode id = attributes.path(OutboxMessageAttributes.EVENT_ID).path("StringValue");
    return id.isMissingNode() ? null : id.asText();
  }

  private static void digests(JsonNode message, ObjectNode answer) {
    answer.put("MD5OfMessageBody", md5Hex(message.path("MessageBody").asText()));
    JsonNode attributes = message.path("MessageAttributes");
    if (attributes.size() > 0) {
      answer.put("MD5OfMessageAttributes", attributesMd5(attributes));
    }
  }

  /**
   * SQS's digest of message attributes: for each name in order, its name, data type, a transport
   * byte (1 string, 2 binary) and value, each string preceded by its length as 4 bytes big-endian.
   */
  private static String attributesMd5(JsonNode attributes) {
    MessageDigest md5 = md5();
    TreeMap<String, JsonNode> sorted = new TreeMap<>();
    attributes.fields().forEachRemaining(f -> sorted.put(f.getKey(), f.getValue()));
    for (Map.Entry<String, JsonNode> a : sorted.entrySet()) {
      lengthAndBytes(md5, a.getKey().getBytes(StandardCharsets.UTF_8));
      lengthAndBytes(md5, a.getValue().path("DataType").asText().getBytes(StandardCharsets.UTF_8));
      if (a.getValue().has("StringValue")) {
        md5.update((byte) 1);
        lengthAndBytes(
            md5, a.getValue().path("StringValue").asText().getBytes(StandardCharsets.UTF_8));
      } else {
        md5.update((byte) 2);
        try {
          lengthAndBytes(md5, a.getValue().path("BinaryValue").binaryValue());
        } catch (IOException e) {
          throw new IllegalArgumentException("BinaryValue of " + a.getKey() + " is not base64", e);
        }
      }
    }
    return HexFormat.of().formatHex(md5.digest());
  }

  private static void lengthAndBytes(MessageDigest md5, byte[] bytes) {
    md5.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
    md5.update(bytes);
  }

  private static String md5Hex(String text) {
    return HexFormat.of().formatHex(md5().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no MD5", e);
    }
  }

  private static Call sns(Map<String, String> form) {
    String action = form.getOrDefault("Action", "");
    List<Entry> entries = new ArrayList<>();
    StringBuilder result = new StringBuilder();
    switch (action) {
      case "Publish" -> {
        entries.add(new Entry(null, snsEventId(form, "MessageAttributes.entry.")));
        result.append("<MessageId>").append(UUID.randomUUID()).append("</MessageId>");
      }
      case "PublishBatch" -> {
        result.append("<Successful>");
        for (int n = 1; form.containsKey(member(n) + "Id"); n++) {
          String id = form.get(member(n) + "Id");
          entries.add(new Entry(id, snsEventId(form, member(n) + "MessageAttributes.entry.")));
          result
              .append("<member><Id>")
              .append(xml(id))
              .append("</Id><MessageId>")
              .append(UUID.randomUUID())
              .append("</MessageId></member>");
        }
        result.append("</Successful><Failed/>");
      }
      default -> {
        return null;
      }
    }
    String answer =
        "<"
            + action
            + "Response xmlns=\""
            + SNS_NS
            + "\"><"
            + action
            + "Result>"
            + result
            + "</"
            + action
            + "Result><ResponseMetadata><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ResponseMetadata></"
            + action
            + "Response>";
    return new Call(action, entries, "text/xml", answer.getBytes(StandardCharsets.UTF_8));
  }

  private static String member(int n) {
    return "PublishBatchRequestEntries.member." + n + ".";
  }

  private static String snsEventId(Map<String, String> form, String prefix) {
    for (int m = 1; form.containsKey(prefix + m + ".Name"); m++) {
      if (form.get(prefix + m + ".Name").equals(OutboxMessageAttributes.EVENT_ID)) {
        return form.get(prefix + m + ".Value.StringValue");
      }
    }
    return null;
  }

  private static Map<String, String> form(String body) {
    Map<String, String> form = new HashMap<>();
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        form.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return form;
  }

  private static String xml(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** The error answer for an action this stand-in does not speak. */
  static byte[] unknownAction(String what) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(
        ("{\"__type\":\"InvalidAction\",\"message\":\"the broker stand-in answers SQS SendMessage,"
                + " SendMessageBatch and SNS Publish, PublishBatch only, not "
                + what.replace("\"", "'")
                + "\"}")
            .getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
