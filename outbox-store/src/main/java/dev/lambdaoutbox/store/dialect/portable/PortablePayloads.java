package dev.lambdaoutbox.store.dialect.portable;

import dev.lambdaoutbox.store.FullPayload;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * Reads one row's whole payload, which a claim returns cut when it is over 256 KiB, in pieces that
 * each fit a bounded result (the Data API answers at most 1 MiB): first its size, then {@link
 * #PIECE_CHARS} characters at a time, the same SQL in every dialect ({@code substr} counts
 * characters, so a piece never splits one).
 */
public final class PortablePayloads {
  /**
   * Characters per piece: UTF-8 takes at most four bytes a character, so a piece is at most 256 KiB
   * of text, under the Data API's 1 MiB response even with JSON escaping.
   */
  public static final int PIECE_CHARS = 65_536;

  private final String size;
  private final String piece;

  public PortablePayloads(SqlTemplate sql) {
    this.size =
        sql.fill(
            """
            SELECT octet_length(payload) AS bytes, char_length(payload) AS chars
            FROM {messages} WHERE id = :id AND status = 'PENDING'
            """);
    this.piece =
        sql.fill(
            """
            SELECT substr(payload, :start, :length) AS piece
            FROM {messages} WHERE id = :id AND status = 'PENDING'
            """);
  }

  /**
   * The payload of the PENDING row {@code id}, when it holds at most {@code maxBytes} UTF-8 bytes;
   * read in pieces of {@link #PIECE_CHARS} characters.
   */
  public FullPayload read(SqlSession s, UUID id, long maxBytes) {
    List<Row> sized = s.query(size, Params.of().uuid("id", id));
    if (sized.isEmpty()) {
      return new FullPayload.Gone();
    }
    long bytes = sized.get(0).longValue("bytes");
    long chars = sized.get(0).longValue("chars");
    if (bytes > maxBytes) {
      return new FullPayload.OverBudget(bytes, maxBytes);
    }
    StringBuilder text = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 8, chars * 2));
    for (int start = 1; start <= chars; start += PIECE_CHARS) {
      List<Row> rows =
          s.query(
              piece,
              Params.of().uuid("id", id).integer("start", start).integer("length", PIECE_CHARS));
      if (rows.isEmpty()) {
        return new FullPayload.Gone();
      }
      String part = rows.get(0).text("piece");
      text.append(part == null ? "" : part);
    }
    String whole = text.toString();
    long read = whole.getBytes(StandardCharsets.UTF_8).length;
    if (read != bytes) {
      throw new IllegalStateException(
          "the payload of row "
              + id
              + " read back as "
              + read
              + " bytes of UTF-8 where the database counts "
              + bytes);
    }
    return new FullPayload.Whole(whole);
  }
}
