package dev.lambdaoutbox.store.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.JsonSupport;

/**
 * Reads the database login out of a Secrets Manager secret's text ({@code {"username": "...",
 * "password": "..."}}). A secret that cannot be read is refused with a {@link
 * ConfigurationException} that names the field at fault and never quotes the secret: the JSON
 * parser's own message (which quotes the token it could not read, a piece of the password as often
 * as not) is neither shown nor kept as the cause.
 */
final class SecretLogin {
  private static final String SHAPE = "{\"username\": \"...\", \"password\": \"...\"}";

  private SecretLogin() {}

  static DatabaseCredentials parse(String arn, String secretString) {
    if (secretString == null || secretString.isBlank()) {
      throw refused(arn, "holds no SecretString (a binary or empty secret)");
    }
    JsonNode json;
    try {
      json = JsonSupport.mapper().readTree(secretString);
    } catch (JsonProcessingException e) {
      throw refused(arn, "is not valid JSON" + where(e.getLocation()));
    } catch (RuntimeException e) {
      throw refused(arn, "is not valid JSON");
    }
    if (json == null || !json.isObject()) {
      throw refused(arn, "is JSON " + kind(json) + ", not an object");
    }
    return new DatabaseCredentials(text(arn, json, "username"), text(arn, json, "password"));
  }

  private static String text(String arn, JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null) {
      throw refused(arn, "has no '" + field + "' field");
    }
    if (!value.isTextual()) {
      throw refused(arn, "has a '" + field + "' that is " + kind(value) + ", not a string");
    }
    return value.textValue();
  }

  /** What a value is, by its JSON type alone: never its text. */
  private static String kind(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      case NUMBER -> "a number";
      case OBJECT -> "an object";
      case STRING -> "a string";
      default -> "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static String where(JsonLocation location) {
    return location == null || location.getLineNr() < 1
        ? ""
        : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }

  private static ConfigurationException refused(String arn, String problem) {
    // No cause: a parser's exception would carry the secret's text in its message.
    return new ConfigurationException(
        DatabaseVariables.SECRET_ARN.name(),
        "secret "
            + arn
            + " "
            + problem
            + "; store the login as "
            + SHAPE
            + " (the secret's text is not shown here, as it holds the password)");
  }
}
