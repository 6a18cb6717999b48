package dev.lambdaoutbox.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SqlDialectTest {

  @Test
  void fromProductName_recognisesProductsAndUrls() {
    assertThat(SqlDialect.fromProductName("PostgreSQL")).isEqualTo(SqlDialect.POSTGRESQL);
    assertThat(SqlDialect.fromProductName("jdbc:postgresql://h/db"))
        .isEqualTo(SqlDialect.POSTGRESQL);
    assertThat(SqlDialect.fromProductName("MySQL")).isEqualTo(SqlDialect.MYSQL);
    assertThat(SqlDialect.fromProductName("MariaDB")).isEqualTo(SqlDialect.MYSQL);
    assertThat(SqlDialect.fromProductName("jdbc:mysql://h:3306/db")).isEqualTo(SqlDialect.MYSQL);
  }

  @Test
  void fromProductName_whenUnsupported_namesTheProduct() {
    assertThatThrownBy(() -> SqlDialect.fromProductName("Oracle"))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("Oracle");
    assertThatThrownBy(() -> SqlDialect.fromProductName(null)).isInstanceOf(OutboxException.class);
  }

  @Test
  void migrationLocation_isTheDialectsFolder() {
    assertThat(SqlDialect.POSTGRESQL.migrationLocation()).isEqualTo("db/outbox/postgresql");
    assertThat(SqlDialect.MYSQL.migrationLocation()).isEqualTo("db/outbox/mysql");
  }
}
