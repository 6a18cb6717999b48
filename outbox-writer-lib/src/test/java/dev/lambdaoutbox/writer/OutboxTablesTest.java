package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxTablesTest {

  @Test
  void defaults_haveNoPrefix() {
    OutboxTables tables = OutboxTables.defaults();

    assertThat(tables.messages()).isEqualTo("outbox_messages");
    assertThat(tables.deadLetters()).isEqualTo("outbox_dead_letters");
    assertThat(tables.deadLetterAudit()).isEqualTo("outbox_dead_letter_audit");
    assertThat(tables.idempotencyKeys()).isEqualTo("outbox_idempotency_keys");
    assertThat(tables.inbox()).isEqualTo("inbox_processed_messages");
    assertThat(tables.schemaHistory()).isEqualTo("outbox_schema_history");
    assertThat(tables.destinationHealth()).isEqualTo("outbox_destination_health");
  }

  @Test
  void withPrefix_prefixesEveryTable() {
    OutboxTables tables = OutboxTables.withPrefix("shop_");

    assertThat(tables.messages()).isEqualTo("shop_outbox_messages");
    assertThat(tables.deadLetters()).isEqualTo("shop_outbox_dead_letters");
    assertThat(tables.deadLetterAudit()).isEqualTo("shop_outbox_dead_letter_audit");
    assertThat(tables.idempotencyKeys()).isEqualTo("shop_outbox_idempotency_keys");
    assertThat(tables.inbox()).isEqualTo("shop_inbox_processed_messages");
    assertThat(tables.schemaHistory()).isEqualTo("shop_outbox_schema_history");
    assertThat(tables.destinationHealth()).isEqualTo("shop_outbox_destination_health");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "_", "Shop_", "_x9", "abcdefghijklmnopqrstuvwx"})
  void withPrefix_acceptsIdentifierFragments(String prefix) {
    assertThat(OutboxTables.withPrefix(prefix).prefix()).isEqualTo(prefix);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "bad-prefix",
        "1abc",
        "a b",
        "a;drop table x;",
        "a.b",
        "\"q\"",
        "caf\u00e9_",
        " shop"
      })
  void withPrefix_whenNotAnIdentifierFragment_refusesNamingTablePrefix(String prefix) {
    assertThatThrownBy(() -> OutboxTables.withPrefix(prefix))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix: ")
        .hasMessageContaining(prefix);
  }

  @Test
  void withPrefix_whenLongerThanLimit_refusesNamingTablePrefix() {
    String tooLong = "p".repeat(OutboxTables.MAX_PREFIX_LENGTH + 1);

    assertThatThrownBy(() -> OutboxTables.withPrefix(tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix: ")
        .hasMessageContaining(String.valueOf(OutboxTables.MAX_PREFIX_LENGTH));
  }

  @Test
  void withPrefix_whenNull_refusesNamingTablePrefix() {
    assertThatThrownBy(() -> OutboxTables.withPrefix(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix: ");
  }

  @Test
  void longestPrefix_keepsEveryIdentifierWithinPostgresLimit() {
    String prefix = "p".repeat(OutboxTables.MAX_PREFIX_LENGTH);
    OutboxSchema schema = OutboxSchema.create(OutboxTables.withPrefix(prefix));

    for (SqlDialect dialect : SqlDialect.values()) {
      for (String migration : OutboxSchema.MIGRATIONS) {
        String sql = schema.render(dialect, migration);
        Matcher names = Pattern.compile(prefix + "\\w*").matcher(sql);
        int found = 0;
        while (names.find()) {
          found++;
          assertThat(names.group().length()).as(names.group()).isLessThanOrEqualTo(63);
        }
        assertThat(found).as(migration).isPositive();
      }
    }
  }
}
