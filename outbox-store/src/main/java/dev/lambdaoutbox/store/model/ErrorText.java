package dev.lambdaoutbox.store.model;

/** Makes publish error codes and reasons fit their columns. */
public final class ErrorText {
  /** Longest error reason kept; enough for any broker message, far below the column's limit. */
  public static final int MAX_REASON_LENGTH = 4000;

  /** The width of last_error_code / error_code. */
  public static final int MAX_CODE_LENGTH = 128;

  /** The error code of a dead letter without one (the column may not be null). */
  public static final String UNKNOWN_CODE = "UNKNOWN";

  private ErrorText() {}

  public static String code(String code) {
    return code == null ? null : clip(code, MAX_CODE_LENGTH);
  }

  public static String requiredCode(String code) {
    return code == null || code.isBlank() ? UNKNOWN_CODE : clip(code, MAX_CODE_LENGTH);
  }

  public static String reason(String reason) {
    return reason == null ? null : clip(reason, MAX_REASON_LENGTH);
  }

  /**
   * At most {@code max} chars, never splitting a surrogate pair, without NUL characters (which
   * PostgreSQL text cannot hold).
   */
  public static String clip(String text, int max) {
    String s = text.indexOf('\0') >= 0 ? text.replace("\0", "") : text;
    if (s.length() <= max) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
    return s.substring(0, end);
  }
}
