package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Reads one text column of one row in pieces, each within the session's row limit (the Data API's
 * 64 KB a row: {@link SqlSession#maxRowBytes()}) and result budget, whatever the characters: first
 * the column's size in bytes and characters, then {@link #pieceChars} characters at a time with
 * {@code substr}, which counts characters in both dialects and so never splits one.
 */
public final class ColumnPieces {
  /** What a piece's row holds beside its text: its length word, and room to spare. */
  static final int PIECE_ROW_OVERHEAD = 64;

  /** The most bytes of text one piece holds where nothing smaller bounds it (over JDBC). */
  static final int MAX_PIECE_BYTES = 1024 * 1024;

  private final String column;
  private final String size;
  private final String piece;

  /**
   * The column {@code column} of the row of {@code table} (a {@link SqlTemplate} name such as
   * {@code {messages}}) that {@code where} finds by its {@code :id}.
   */
  public ColumnPieces(SqlTemplate sql, String table, String column, String where) {
    this.column = column;
    // The table's name first, so that the template fills it in with the rest.
    this.size =
        sql.fill(
            "SELECT octet_length({column}) AS bytes, char_length({column}) AS chars FROM "
                + table
                + " WHERE "
                + where,
            "column",
            column);
    this.piece =
        sql.fill(
            "SELECT substr({column}, :start, :length) AS piece FROM " + table + " WHERE " + where,
            "column",
            column);
  }

  /** What reading the column came to. */
  public sealed interface Text {}

  /** The column's whole text (null for SQL NULL). */
  public record Whole(String text) implements Text {}

  /** More bytes than the caller would read: not read. */
  public record OverBudget(long bytes) implements Text {}

  /** No row matches any more. */
  public record Gone() implements Text {}

  /** The column of the row {@code id}, when it holds at most {@code maxBytes} bytes of UTF-8. */
  public Text read(SqlSession s, UUID id, long maxBytes) {
    return read(s, () -> Params.of().uuid("id", id), maxBytes);
  }

  /**
   * The column of the row its {@code :id} finds ({@code row} gives those parameters for each
   * statement), when it holds at most {@code maxBytes} bytes of UTF-8.
   */
  public Text read(SqlSession s, Supplier<Params> row, long maxBytes) {
    List<Row> sized = s.query(size, row.get());
    if (sized.isEmpty()) {
      return new Gone();
    }
    if (sized.get(0).text("bytes") == null) {
      return new Whole(null);
    }
    long bytes = sized.get(0).longValue("bytes");
    long chars = sized.get(0).longValue("chars");
    if (bytes > maxBytes) {
      return new OverBudget(bytes);
    }
    int length = pieceChars(bytes, chars, pieceBytes(s));
    StringBuilder text = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 8, chars * 2));
    for (long start = 1; start <= chars; start += length) {
      List<Row> rows =
          s.query(
              piece, row.get().integer("start", Math.toIntExact(start)).integer("length", length));
      if (rows.isEmpty()) {
        return new Gone();
      }
      String part = rows.get(0).text("piece");
      text.append(part == null ? "" : part);
    }
    String whole = text.toString();
    long read = whole.getBytes(StandardCharsets.UTF_8).length;
    if (read != bytes) {
      throw new IllegalStateException(
          "the "
              + column
              + " column read back as "
              + read
              + " bytes of UTF-8 where the database counts "
              + bytes);
    }
    return new Whole(whole);
  }

  /** The bytes of text one piece may hold in {@code s}: within its row limit and its budget. */
  static int pieceBytes(SqlSession s) {
    long bound = Math.min(s.maxRowBytes(), s.maxResultBytes());
    return (int) Math.min(MAX_PIECE_BYTES, bound - PIECE_ROW_OVERHEAD);
  }

  /**
   * Characters per piece of a text of {@code bytes} bytes in {@code chars} characters, so that no
   * piece holds more than {@code pieceBytes} bytes: a character takes one byte and at most three
   * more, and the extra bytes of the characters in one piece are at most those of the whole text
   * ({@code bytes - chars}). So ASCII is read {@code pieceBytes} characters at a time, text of
   * 4-byte characters a quarter of that, and mostly-ASCII text nearly as fast as ASCII.
   */
  static int pieceChars(long bytes, long chars, int pieceBytes) {
    long extra = Math.max(0, bytes - chars);
    return (int) Math.max(pieceBytes / 4, pieceBytes - Math.min(extra, pieceBytes));
  }
}
