package dev.lambdaoutbox.store.dataapi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.sql.Params;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.rdsdata.model.Field;
import software.amazon.awssdk.services.rdsdata.model.SqlParameter;
import software.amazon.awssdk.services.rdsdata.model.TypeHint;

class DataApiValuesTest {
  private static final UUID ID = UUID.fromString("0190a0a0-0000-7000-8000-000000000001");

  @Test
  void postgresql_getsTypeHints_forUuidTimestampJsonAndDecimal() {
    List<SqlParameter> p =
        DataApiValues.parameters(
            "SELECT :id, :at, :doc, :amount, :owner, :limit",
            Params.of()
                .uuid("id", ID)
                .timestamp("at", Instant.parse("2026-03-01T10:00:00.000120Z"))
                .json("doc", "{}")
                .decimal("amount", new BigDecimal("1E+2"))
                .text("owner", "a")
                .integer("limit", 5),
            SqlDialect.POSTGRESQL);

    assertThat(p)
        .extracting(SqlParameter::name, SqlParameter::typeHint)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("id", TypeHint.UUID),
            org.assertj.core.groups.Tuple.tuple("at", TypeHint.TIMESTAMP),
            org.assertj.core.groups.Tuple.tuple("doc", TypeHint.JSON),
            org.assertj.core.groups.Tuple.tuple("amount", TypeHint.DECIMAL),
            org.assertj.core.groups.Tuple.tuple("owner", null),
            org.assertj.core.groups.Tuple.tuple("limit", null));
    assertThat(p.get(1).value().stringValue()).isEqualTo("2026-03-01 10:00:00.000120");
    assertThat(p.get(3).value().stringValue()).isEqualTo("100");
    assertThat(p.get(5).value().longValue()).isEqualTo(5L);
  }

  @Test
  void mysql_sendsUuidsAsPlainText_forItsChar36Columns() {
    SqlParameter id =
        DataApiValues.parameters("SELECT :id", Params.of().uuid("id", ID), SqlDialect.MYSQL).get(0);

    assertThat(id.typeHint()).isNull();
    assertThat(id.value().stringValue()).isEqualTo(ID.toString());
  }

  @Test
  void onlyTheParametersTheStatementNames_areSent_onceEach_andANullKeepsItsHint() {
    List<SqlParameter> p =
        DataApiValues.parameters(
            "UPDATE t SET a = :leaseEnd, b = :leaseEnd WHERE c = :id",
            Params.of().timestamp("leaseEnd", null).uuid("id", ID).text("unused", "x"),
            SqlDialect.POSTGRESQL);

    assertThat(p).extracting(SqlParameter::name).containsExactly("leaseEnd", "id");
    assertThat(p.get(0).value().isNull()).isTrue();
    assertThat(p.get(0).typeHint()).isEqualTo(TypeHint.TIMESTAMP);
  }

  @Test
  void fields_readAsText() {
    assertThat(DataApiValues.text(Field.fromStringValue("x"))).isEqualTo("x");
    assertThat(DataApiValues.text(Field.fromLongValue(7L))).isEqualTo("7");
    assertThat(DataApiValues.text(Field.fromIsNull(true))).isNull();
    assertThat(DataApiValues.text(Field.fromBooleanValue(true))).isEqualTo("true");
  }
}
