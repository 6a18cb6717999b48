package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How the writer reads which key clashed from a MySQL or MariaDB duplicate-key message. */
class DuplicateKeyMessageTest {
  private static final String LONG = "order-" + "0".repeat(90) + "-line-";
  private static final List<String> KEYS = List.of(LONG + "1", LONG + "2", "short-1", "short-2");

  @Test
  void keysNamedIn_whenTheWholeKeyIsQuoted_isThatKey() {
    String mysql8 =
        "Duplicate entry 'short-2' for key 't_outbox_messages.t_outbox_messages_idem_uq'";
    String mariaDb = "Duplicate entry 'short-2' for key 't_outbox_messages_idem_uq'";

    assertThat(MysqlKeyedInsert.keysNamedIn(mysql8, KEYS)).containsExactly("short-2");
    assertThat(MysqlKeyedInsert.keysNamedIn(mariaDb, KEYS)).containsExactly("short-2");
  }

  @Test
  void keysNamedIn_whenTheQuoteIsCut_isEveryKeyStartingWithIt() {
    String cutMysql = "Duplicate entry '" + LONG.substring(0, 64) + "' for key 'x_idem_uq'";
    String cutMariaDb = "Duplicate entry '" + LONG.substring(0, 64) + "...' for key 'x_idem_uq'";
    List<String> oneLong = List.of(LONG + "1", "short-1");

    assertThat(MysqlKeyedInsert.keysNamedIn(cutMysql, KEYS))
        .containsExactly(LONG + "1", LONG + "2");
    assertThat(MysqlKeyedInsert.keysNamedIn(cutMariaDb, KEYS))
        .containsExactly(LONG + "1", LONG + "2");
    assertThat(MysqlKeyedInsert.keysNamedIn(cutMariaDb, oneLong)).containsExactly(LONG + "1");
  }

  @Test
  void keysNamedIn_whenNoKeyMatches_isEveryKey() {
    assertThat(MysqlKeyedInsert.keysNamedIn("Duplicate entry '\\xF0\\x9F' for key 'k'", KEYS))
        .isEqualTo(KEYS);
    assertThat(MysqlKeyedInsert.keysNamedIn("Lock wait timeout exceeded", KEYS)).isEqualTo(KEYS);
    assertThat(MysqlKeyedInsert.keysNamedIn(null, KEYS)).isEqualTo(KEYS);
  }
}
