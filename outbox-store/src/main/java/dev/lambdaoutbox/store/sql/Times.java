package dev.lambdaoutbox.store.sql;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads the time texts the carriers return, fast: a claim reads three per row. {@code YYYY-MM-DD[
 * T]HH:MM:SS}, an optional fraction of up to nine digits, then optionally {@code Z} or an offset
 * {@code ±HH[[:]MM]}; without a zone the time is UTC.
 */
final class Times {
  private Times() {}

  /** The instant, or null when {@code text} is not such a time. */
  static Instant parse(String text) {
    String t = text.strip();
    int n = t.length();
    if (n < 19
        || t.charAt(4) != '-'
        || t.charAt(7) != '-'
        || t.charAt(13) != ':'
        || t.charAt(16) != ':'
        || (t.charAt(10) != ' ' && t.charAt(10) != 'T')) {
      return null;
    }
    int year = digits(t, 0, 4);
    int month = digits(t, 5, 2);
    int day = digits(t, 8, 2);
    int hour = digits(t, 11, 2);
    int minute = digits(t, 14, 2);
    int second = digits(t, 17, 2);
    int i = 19;
    int nanos = 0;
    if (i < n && t.charAt(i) == '.') {
      int scale = 100_000_000;
      i++;
      int start = i;
      while (i < n && isDigit(t.charAt(i))) {
        if (i - start >= 9) {
          return null;
        }
        nanos += (t.charAt(i) - '0') * scale;
        scale /= 10;
        i++;
      }
      if (i == start) {
        return null;
      }
    }
    int offsetSeconds = 0;
    if (i < n) {
      char c = t.charAt(i);
      if ((c == 'Z' || c == 'z') && i + 1 == n) {
        i++;
      } else if (c == '+' || c == '-') {
        String zone = t.substring(i + 1).replace(":", "");
        if ((zone.length() != 2 && zone.length() != 4) || !zone.chars().allMatch(Times::isDigit)) {
          return null;
        }
        int hours = digits(zone, 0, 2);
        int minutes = zone.length() == 4 ? digits(zone, 2, 2) : 0;
        offsetSeconds = (c == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
        i = n;
      } else {
        return null;
      }
    }
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
      return null;
    }
    try {
      return LocalDateTime.of(year, month, day, hour, minute, second, nanos)
          .toInstant(ZoneOffset.ofTotalSeconds(offsetSeconds));
    } catch (DateTimeException e) {
      return null; // a field out of range: not a time
    }
  }

  /** The number in {@code count} digits from {@code from}, or -1 when one is not a digit. */
  private static int digits(String t, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = t.charAt(i);
      if (!isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }
}
