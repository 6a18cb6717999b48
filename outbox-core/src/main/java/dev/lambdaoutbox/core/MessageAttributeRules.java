package dev.lambdaoutbox.core;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What SNS and SQS accept as a String message attribute. Headers become message attributes, so a
 * header the broker would refuse is refused when the event is built, not hours later in the poller.
 */
final class MessageAttributeRules {
  /**
   * The longest attribute name SQS takes: its documentation says "up to 256 characters", but it
   * refuses a name of 256 ("Message (user) attribute names must be shorter than 256 Bytes"), and a
   * name is ASCII, so bytes are characters.
   */
  static final int MAX_NAME_LENGTH = 255;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]+");

  private MessageAttributeRules() {}

  /** Null when {@code name} is acceptable as a header name, otherwise why not. */
  static String problemWithName(String name) {
    if (name == null || name.isEmpty()) {
      return "a header name must not be empty";
    }
    if (name.length() > MAX_NAME_LENGTH) {
      return "a header name may have at most " + MAX_NAME_LENGTH + " characters";
    }
    if (!NAME.matcher(name).matches()) {
      return "a header name may contain only letters, digits, '_', '-' and '.'";
    }
    if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      return "a header name may not start or end with '.' nor contain '..'";
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.startsWith("aws.") || lower.startsWith("amazon.")) {
      return "names starting with 'AWS.' or 'Amazon.' are reserved by AWS";
    }
    if (OutboxMessageAttributes.RESERVED.contains(name)) {
      return "'" + name + "' is set by the outbox itself";
    }
    if (ClaimCheckFormat.SIZE_ATTRIBUTES.contains(name)) {
      return "'"
          + name
          + "' is set by the claim check alone: it marks a message whose body points to a payload"
          + " stored in S3";
    }
    return null;
  }

  /** Null when {@code value} is acceptable as a String attribute value, otherwise why not. */
  static String problemWithValue(String value) {
    if (value == null || value.isEmpty()) {
      return "a header value must not be empty (SNS and SQS refuse empty attribute values)";
    }
    return problemWithCharacters(value);
  }

  /**
   * Null when every character of {@code text} may travel in an SNS/SQS message body or attribute,
   * otherwise the first one that may not. An unpaired surrogate is refused too: it has no UTF-8
   * form, so it would not even reach the database intact.
   */
  static String problemWithCharacters(String text) {
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c < 0xD800) {
        continue; // the common case, checked without decoding
      }
      int cp = text.codePointAt(i);
      if (!isXmlChar(cp)) {
        return String.format(
            Locale.ROOT,
            "contains the character U+%04X at index %d, which SNS and SQS do not accept",
            cp,
            i);
      }
      if (Character.isSupplementaryCodePoint(cp)) {
        i++;
      }
    }
    return null;
  }

  /** The characters allowed in SNS/SQS message text: those of XML 1.0. */
  static boolean isXmlChar(int cp) {
    return cp == 0x9
        || cp == 0xA
        || cp == 0xD
        || (cp >= 0x20 && cp <= 0xD7FF)
        || (cp >= 0xE000 && cp <= 0xFFFD)
        || (cp >= 0x10000 && cp <= 0x10FFFF);
  }
}
