package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.rows.DeadLetterRows;
import dev.lambdaoutbox.store.internal.rows.Results;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The reprocessor's reads of the dead letters, the same in every dialect apart from how a time is
 * written: pages with payload previews, summaries, rows matching a filter, rows by id. Under a
 * result budget, rows' sizes are read first and the rows fetched in groups that fit.
 */
public final class PortableDeadLetters {
  /**
   * {@code SELECT selectList FROM} the dead letters with these ids {@code ORDER BY id}, locked
   * ({@code FOR UPDATE}) with {@code lock}: the one statement whose id list each dialect writes its
   * own way.
   */
  @FunctionalInterface
  public interface ByIds {
    List<Row> select(SqlSession s, String selectList, Collection<UUID> ids, boolean lock);
  }

  private final SqlTemplate sql;
  private final ByIds byIds;
  private final String columns;
  private final String sizedColumns;
  private final ColumnPieces headers;
  private final String count;

  public PortableDeadLetters(SqlTemplate sql, ByIds byIds) {
    this.sql = sql;
    this.byIds = byIds;
    this.columns = columns("");
    this.sizedColumns = sizedColumns("");
    this.headers = new ColumnPieces(sql, "{deadLetters}", "headers", "id = :id");
    this.count =
        sql.fill(
            "SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {deadLetters} LIMIT {cap})"
                + " capped",
            "cap",
            DeadLetter.COUNT_CAP + 1);
  }

  /**
   * Every dead-letter column qualified by {@code alias} ("" for none), times as UTC text, a payload
   * over 256 KiB cut ({@link ResultBudget#cutPayloadOnly}): a dead letter of any size can be read,
   * and nothing writes a payload read here (a replay and an audit snapshot copy it in SQL).
   */
  public String columns(String alias) {
    String payload = alias.isEmpty() ? "payload" : alias + ".payload";
    return sql.syntax()
        .selectList(alias, DeadLetterRows.COLUMNS)
        .replace(payload + ",", ResultBudget.cutPayloadOnly(payload) + " AS payload,");
  }

  /**
   * Every dead-letter column qualified by {@code alias} ("" for none) for a bounded read, each row
   * within {@link ResultBudget#MAX_ROW_BYTES}: times as UTC text, the payload of a row too large
   * cut to a preview ({@link ResultBudget#cutDeadLetterPayload}: nothing writes a payload read
   * here) and large headers NULL, with their size ({@link ResultBudget#cutHeaders}), read in pieces
   * by {@link #wholeHeaders}.
   */
  public String sizedColumns(String alias) {
    String dot = alias.isEmpty() ? "" : alias + ".";
    return sql.syntax()
        .selectList(alias, DeadLetterRows.COLUMNS)
        .replace(
            dot + "payload,",
            ResultBudget.cutDeadLetterPayload(dot + "payload", ResultBudget.deadLetterBytes(alias))
                + " AS payload,")
        .replace(dot + "headers,", ResultBudget.cutHeaders(dot + "headers") + ",");
  }

  /** The columns to read under a result budget: {@link #sizedColumns} where rows are bounded. */
  private String columns(SqlSession s) {
    return ResultBudget.rowBounded(s) ? sizedColumns : columns;
  }

  /**
   * The rows of a bounded read ({@link #sizedColumns}) with the headers it cut read whole, in
   * pieces; other rows as they are.
   */
  public List<Row> wholeHeaders(SqlSession s, List<Row> rows) {
    if (rows.isEmpty() || !rows.get(0).has("headers_bytes")) {
      return rows;
    }
    List<Row> whole = new ArrayList<>(rows.size());
    for (Row row : rows) {
      if (row.text("headers") != null || row.text("headers_bytes") == null) {
        whole.add(row);
        continue;
      }
      UUID id = row.uuid("id");
      if (!(headers.read(s, id, Long.MAX_VALUE) instanceof ColumnPieces.Whole w)) {
        throw new IllegalStateException("the dead letter " + id + " went while it was read");
      }
      whole.add(row.with("headers", w.text()));
    }
    return whole;
  }

  /**
   * A page of up to {@code limit} rows after {@code after}. Under a result budget the rows' sizes
   * (previews included) are read first and the page ends early, with a cursor, where the next row
   * would not fit.
   */
  public DeadLetterPage list(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, int preview) {
    // Where rows are bounded, a preview is at most what fits one beside the other columns.
    int previewChars = ResultBudget.previewChars(s, preview);
    int rows = limit + 1; // one more than the page, to know whether another page follows
    if (!ResultBudget.unbounded(s)) {
      Params params = Params.of().integer("preview", previewChars).integer("limit", rows);
      String sizes =
          select(
              "id, "
                  + ResultBudget.DEAD_LETTER_BYTES.replace(
                      "octet_length(payload)", "octet_length(substr(payload, 1, :preview))")
                  + " AS bytes",
              sql.syntax().conditions(params).matching(filter).after(after).where(),
              "");
      List<Row> sized = s.query(sizes, params);
      if (sized.isEmpty()) {
        return new DeadLetterPage(List.of(), null);
      }
      int take = Math.min(limit, ResultBudget.fitting(sized, s.maxResultBytes()));
      List<DeadLetterPage.Entry> page =
          previews(s, filter, after, take, previewChars, ResultBudget.rowBounded(s));
      boolean more = sized.size() > take && !page.isEmpty();
      return new DeadLetterPage(
          page, more ? page.get(page.size() - 1).deadLetter().position() : null);
    }
    List<DeadLetterPage.Entry> entries = previews(s, filter, after, rows, previewChars, false);
    if (entries.size() <= limit) {
      return new DeadLetterPage(entries, null);
    }
    List<DeadLetterPage.Entry> page = entries.subList(0, limit);
    return new DeadLetterPage(page, page.get(limit - 1).deadLetter().position());
  }

  /** The page's rows with their payloads' previews; {@code rowBounded}: large headers in pieces. */
  private List<DeadLetterPage.Entry> previews(
      SqlSession s,
      DeadLetterFilter filter,
      DeadLetterCursor after,
      int limit,
      int previewChars,
      boolean rowBounded) {
    Params params = Params.of().integer("preview", previewChars).integer("limit", limit);
    String where = sql.syntax().conditions(params).matching(filter).after(after).where();
    String list = DeadLetterRows.previewList(sql.syntax().selectList("", DeadLetterRows.COLUMNS));
    if (rowBounded) {
      list = list.replace("headers,", ResultBudget.cutHeaders("headers") + ",");
    }
    return wholeHeaders(s, s.query(select(list, where, ""), params)).stream()
        .map(DeadLetterRows::readPreview)
        .toList();
  }

  /** {@code SELECT selectList FROM} the dead letters {@code where}, in listing order. */
  private String select(String selectList, String where, String locking) {
    return sql.fill(
        "SELECT {list} FROM {deadLetters}{where} ORDER BY dead_at, id LIMIT :limit{locking}",
        "list",
        selectList,
        "where",
        where,
        "locking",
        locking);
  }

  /**
   * Counts of the rows {@code filter} matches, by error code and event type: of the {@link
   * DeadLetter#COUNT_CAP} + 1 oldest deaths at most, walked along the (dead_at, id) index.
   */
  public DeadLetterSummary summarize(SqlSession s, DeadLetterFilter filter) {
    Params params = Params.of().integer("cap", DeadLetter.COUNT_CAP + 1);
    String summary =
        sql.fill(
            """
            SELECT error_code, event_type, count(*) AS row_count,
              {utc:min(dead_at)} AS oldest_dead_at, {utc:max(dead_at)} AS newest_dead_at
            FROM (SELECT error_code, event_type, dead_at FROM {deadLetters}{where}
              ORDER BY dead_at, id LIMIT :cap) capped
            GROUP BY error_code, event_type ORDER BY row_count DESC, error_code, event_type
            """,
            "where",
            sql.syntax().conditions(params).matching(filter).where());
    return Results.summary(s.query(summary, params));
  }

  public long count(SqlSession s) {
    return s.query(count, Params.none()).get(0).longValue("row_count");
  }

  /** Up to {@code limit} matching dead letters after {@code after}, oldest death first. */
  public List<DeadLetter> matching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, boolean lock) {
    boolean sized = !ResultBudget.unbounded(s);
    Params params = Params.of().integer("limit", limit);
    String where = sql.syntax().conditions(params).matching(filter).after(after).where();
    String select =
        select(
            sized ? "id, " + ResultBudget.DEAD_LETTER_BYTES + " AS bytes" : columns,
            where,
            lock ? " FOR UPDATE" : "");
    List<Row> rows = s.query(select, params);
    if (!sized) {
      return DeadLetterRows.readAll(rows);
    }
    Map<UUID, DeadLetter> byId = new HashMap<>();
    for (List<UUID> group : ResultBudget.groups(rows, s.maxResultBytes())) {
      for (Row row : wholeHeaders(s, byIds.select(s, columns(s), group, false))) {
        DeadLetter d = DeadLetterRows.read(row);
        byId.put(d.id(), d);
      }
    }
    return rows.stream().map(r -> byId.get(r.uuid("id"))).toList();
  }

  /**
   * The dead letters with these ids, by id; locked with {@code lock}. Under a result budget their
   * sizes are read (and the rows locked) first, then the rows in groups that fit.
   */
  public List<DeadLetter> byIds(SqlSession s, Collection<UUID> ids, boolean lock) {
    if (ResultBudget.unbounded(s)) {
      return DeadLetterRows.readAll(byIds.select(s, columns, ids, lock));
    }
    List<Row> sizes =
        byIds.select(s, "id, " + ResultBudget.DEAD_LETTER_BYTES + " AS bytes", ids, lock);
    List<DeadLetter> rows = new ArrayList<>(sizes.size());
    for (List<UUID> group : ResultBudget.groups(sizes, s.maxResultBytes())) {
      rows.addAll(
          DeadLetterRows.readAll(wholeHeaders(s, byIds.select(s, columns(s), group, false))));
    }
    return rows;
  }

  /** Whether any dead letter after {@code after} matches {@code filter}. */
  public boolean any(SqlSession s, DeadLetterFilter filter, DeadLetterCursor after) {
    Params params = Params.of();
    String where = sql.syntax().conditions(params).matching(filter).after(after).where();
    return !s.query(
            sql.fill("SELECT 1 AS found FROM {deadLetters}{where} LIMIT 1", "where", where), params)
        .isEmpty();
  }
}
