package dev.lambdaoutbox.store.internal.rows;

import dev.lambdaoutbox.store.sql.Params;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;

/**
 * {@code IN} lists of generated parameters ({@code :id0, :id1, ...}), for MySQL, where the
 * statements stay index lookups by key and a list needs no JSON expansion.
 */
public final class InLists {
  /** Values per list: keeps statements short and far below every parameter limit. */
  public static final int MAX = 1000;

  private InLists() {}

  /** {@code (:prefix0, :prefix1, ...)}, adding each id as a UUID parameter. */
  public static String uuids(String prefix, Collection<UUID> ids, Params params) {
    return list(prefix, ids, (name, id) -> params.uuid(name, id));
  }

  /** {@code (:prefix0, :prefix1, ...)}, adding each value as a text parameter. */
  public static String texts(String prefix, Collection<String> values, Params params) {
    return list(prefix, values, (name, value) -> params.text(name, value));
  }

  /** {@code (:prefix0, :prefix1, ...)}, adding each value as a long parameter. */
  public static String longs(String prefix, Collection<Long> values, Params params) {
    return list(prefix, values, (name, value) -> params.longValue(name, value));
  }

  private static <T> String list(String prefix, Collection<T> values, BiConsumer<String, T> bind) {
    requireSize(values);
    StringBuilder sb = new StringBuilder(values.size() * (prefix.length() + 6)).append('(');
    int i = 0;
    for (T value : values) {
      String name = prefix + i++;
      sb.append(i == 1 ? ":" : ", :").append(name);
      bind.accept(name, value);
    }
    return sb.append(')').toString();
  }

  /** {@code values} cut into lists of at most {@link #MAX}. */
  public static <T> List<List<T>> chunks(List<T> values) {
    List<List<T>> chunks = new ArrayList<>();
    for (int from = 0; from < values.size(); from += MAX) {
      chunks.add(values.subList(from, Math.min(values.size(), from + MAX)));
    }
    return chunks;
  }

  private static void requireSize(Collection<?> values) {
    if (values.isEmpty() || values.size() > MAX) {
      throw new IllegalArgumentException(
          "an IN list takes 1 to " + MAX + " values, not " + values.size());
    }
  }
}
