package dev.lambdaoutbox.core;

/** UTF-8 sizes without encoding. */
public final class Utf8 {
  private Utf8() {}

  /**
   * The number of bytes {@code s} takes in UTF-8 (an unpaired surrogate counts as '?', one byte).
   */
  public static long length(CharSequence s) {
    long bytes = 0;
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        bytes += 1;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
