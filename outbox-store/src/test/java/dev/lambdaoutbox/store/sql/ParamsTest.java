package dev.lambdaoutbox.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ParamsTest {
  @Test
  void values_keepTheirKind_andANullIsTyped() {
    Params p = Params.of().text("owner", null).uuid("id", UUID.randomUUID()).integer("limit", 5);

    assertThat(p.get("owner")).isEqualTo(new SqlValue(SqlValue.Kind.TEXT, null));
    assertThat(p.get("id").kind()).isEqualTo(SqlValue.Kind.UUID);
    assertThat(p.values().keySet()).containsExactly("owner", "id", "limit");
  }

  @Test
  void refuses_aNameGivenTwice_aBadName_andAMissingOne() {
    Params p = Params.of().timestamp("now", Instant.EPOCH);

    assertThatThrownBy(() -> p.text("now", "x")).hasMessageContaining(":now is given twice");
    assertThatThrownBy(() -> p.text("1x", "x")).hasMessageContaining("'1x'");
    assertThatThrownBy(() -> p.get("owner")).hasMessageContaining(":owner");
    assertThatThrownBy(() -> Params.none().text("a", "b"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
