package dev.lambdaoutbox.store.internal.dialect.portable;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ColumnPiecesTest {
  private static final int PIECE_BYTES = 63_936;

  @Test
  void asciiIsReadAsManyCharactersAtATimeAsFitTheBytes_fourByteTextAQuarterOfThat() {
    assertThat(ColumnPieces.pieceChars(1_048_576, 1_048_576, PIECE_BYTES)).isEqualTo(PIECE_BYTES);
    assertThat(ColumnPieces.pieceChars(4 * 262_144, 262_144, PIECE_BYTES))
        .isEqualTo(PIECE_BYTES / 4);
    assertThat(ColumnPieces.pieceChars(1_048_676, 1_048_576, PIECE_BYTES))
        .isEqualTo(PIECE_BYTES - 100);
  }

  /**
   * Mixed text, the wide characters bunched anywhere: no piece ever holds more bytes than allowed.
   */
  @Test
  void noPieceOfAnyText_holdsMoreBytesThanAllowed() {
    Random random = new Random(7);
    String[] kinds = {"x", "é", "€", "\uD83D\uDE00"};
    for (int round = 0; round < 50; round++) {
      StringBuilder text = new StringBuilder();
      int runs = 1 + random.nextInt(20);
      for (int r = 0; r < runs; r++) {
        text.append(kinds[random.nextInt(kinds.length)].repeat(random.nextInt(20_000)));
      }
      String s = text.toString();
      int chars = s.codePointCount(0, s.length());
      int bytes = s.getBytes(StandardCharsets.UTF_8).length;
      int length = ColumnPieces.pieceChars(bytes, chars, PIECE_BYTES);
      int[] codePoints = s.codePoints().toArray();
      for (int start = 0; start < chars; start += length) {
        String piece = new String(codePoints, start, Math.min(length, chars - start));
        assertThat(piece.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(PIECE_BYTES);
      }
    }
  }
}
