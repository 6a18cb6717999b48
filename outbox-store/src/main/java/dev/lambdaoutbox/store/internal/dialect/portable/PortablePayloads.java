package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads the large columns of PENDING rows in pieces ({@link ColumnPieces}), each piece a row the
 * Data API returns: a payload a claim returned cut, whole, for the claim check ({@link #read}), and
 * the payloads and headers a bounded claim cut from its rows, before they are read ({@link
 * #complete}).
 */
public final class PortablePayloads {
  private final ColumnPieces payloads;
  private final ColumnPieces headers;

  public PortablePayloads(SqlTemplate sql) {
    this.payloads =
        new ColumnPieces(sql, "{messages}", "payload", "id = :id AND status = 'PENDING'");
    this.headers =
        new ColumnPieces(sql, "{messages}", "headers", "id = :id AND status = 'PENDING'");
  }

  /** The payload of the PENDING row {@code id}, when it holds at most {@code maxBytes} bytes. */
  public FullPayload read(SqlSession s, UUID id, long maxBytes) {
    return switch (payloads.read(s, id, maxBytes)) {
      case ColumnPieces.Whole whole when whole.text() != null ->
          new FullPayload.Whole(whole.text());
      case ColumnPieces.OverBudget over -> new FullPayload.OverBudget(over.bytes(), maxBytes);
      default -> new FullPayload.Gone();
    };
  }

  /**
   * The claimed rows with what a bounded claim cut read whole, in pieces (this transaction holds
   * them): a payload that came back cut for its row's size, when SNS and SQS can take it (at most
   * {@link MessageSize#MAX_BYTES}; a larger one stays cut, for the claim check or a dead letter),
   * and headers that came back NULL for theirs. Rows without those columns (an unbounded claim) are
   * returned as they are.
   */
  public List<Row> complete(SqlSession s, List<Row> rows) {
    if (rows.isEmpty() || !rows.get(0).has("payload_bytes")) {
      return rows;
    }
    List<Row> whole = new ArrayList<>(rows.size());
    for (Row row : rows) {
      UUID id = MessageRows.uuid(row.text("id"));
      // A row whose id is not a UUID is unreadable: the claim dead-letters it, copied in SQL.
      whole.add(id == null ? row : complete(s, id, row));
    }
    return whole;
  }

  private Row complete(SqlSession s, UUID id, Row row) {
    Row read = row;
    String payload = row.text("payload");
    String bytes = row.text("payload_bytes");
    if (payload != null && bytes != null) {
      long stored = Long.parseLong(bytes.strip());
      if (stored <= MessageSize.MAX_BYTES && Utf8.length(payload) != stored) {
        read = read.with("payload", whole(payloads.read(s, id, MessageSize.MAX_BYTES), id));
      }
    }
    if (row.has("headers_bytes")
        && row.text("headers") == null
        && row.text("headers_bytes") != null) {
      read = read.with("headers", whole(headers.read(s, id, Long.MAX_VALUE), id));
    }
    return read;
  }

  /**
   * The text read; this transaction holds the row, so it cannot have changed or gone (were it to,
   * publishing the cut text would be wrong: failing the claim is not).
   */
  private static String whole(ColumnPieces.Text text, UUID id) {
    if (text instanceof ColumnPieces.Whole w && w.text() != null) {
      return w.text();
    }
    throw new IllegalStateException(
        "the claimed row " + id + " changed while it was read: " + text);
  }
}
