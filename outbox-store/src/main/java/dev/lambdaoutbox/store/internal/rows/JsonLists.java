package dev.lambdaoutbox.store.internal.rows;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.BiConsumer;

/**
 * Lists sent as one JSON text parameter, which the SQL expands into rows ({@code
 * json_array_elements_text}, {@code json_to_recordset}): the RDS Data API takes no array
 * parameters.
 */
public final class JsonLists {
  /** How a time travels inside JSON: UTC, to the microsecond, without a zone. */
  public static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private JsonLists() {}

  /** {@code ["id1","id2",...]}. */
  public static String uuids(Collection<UUID> ids) {
    StringBuilder sb = new StringBuilder(ids.size() * 39 + 2).append('[');
    for (UUID id : ids) {
      sb.append(sb.length() == 1 ? "\"" : ",\"").append(id).append('"');
    }
    return sb.append(']').toString();
  }

  /** {@code ["a","b",...]}, escaped as JSON. */
  public static String texts(Collection<String> values) {
    ArrayNode array = JsonSupport.mapper().createArrayNode();
    values.forEach(array::add);
    return write(array);
  }

  /** {@code [{...},{...}]}: one object per item, filled by {@code fields}. */
  public static <T> String records(List<T> items, BiConsumer<T, ObjectNode> fields) {
    ArrayNode array = JsonSupport.mapper().createArrayNode();
    for (T item : items) {
      fields.accept(item, array.addObject());
    }
    return write(array);
  }

  public static String utc(Instant instant) {
    return UTC_TIME.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
  }

  private static String write(ArrayNode array) {
    try {
      return JsonSupport.mapper().writeValueAsString(array);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a list of strings is always JSON", e);
    }
  }
}
