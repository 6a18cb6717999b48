package dev.lambdaoutbox.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RowTest {
  private static final Row.Columns COLUMNS =
      new Row.Columns(List.of("id", "Created_At", "retry_count", "note"));

  @Test
  void readsColumnsByName_caseInsensitively() {
    UUID id = UUID.randomUUID();
    Row row = COLUMNS.row(new String[] {id.toString(), null, "3", "x"});

    assertThat(row.uuid("ID")).isEqualTo(id);
    assertThat(row.instant("created_at")).isNull();
    assertThat(row.integer("retry_count")).isEqualTo(3);
    assertThat(row.text("note")).isEqualTo("x");
    assertThat(row.values()).containsExactly(id.toString(), null, "3", "x");
    assertThatThrownBy(() -> row.text("missing")).hasMessageContaining("no column missing");
  }

  @Test
  void instant_readsUtcText_toTheMicrosecond_inEveryFormTheCarriersSend() {
    Instant expected = Instant.parse("2026-03-01T10:00:00.123456Z");

    assertThat(time("2026-03-01 10:00:00.123456")).isEqualTo(expected);
    assertThat(time("2026-03-01T10:00:00.123456Z")).isEqualTo(expected);
    assertThat(time("2026-03-01 11:00:00.123456+01")).isEqualTo(expected);
    assertThat(time("2026-03-01 10:00:00")).isEqualTo(Instant.parse("2026-03-01T10:00:00Z"));
    assertThat(time("2026-03-01 10:00:00.5")).isEqualTo(Instant.parse("2026-03-01T10:00:00.5Z"));
    assertThatThrownBy(() -> time("03/01/2026 10:00:00")).hasMessageContaining("not a time");
  }

  private static Instant time(String text) {
    return COLUMNS.row(new String[] {null, text, "0", null}).instant("created_at");
  }
}
