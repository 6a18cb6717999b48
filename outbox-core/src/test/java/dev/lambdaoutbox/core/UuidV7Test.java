package dev.lambdaoutbox.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

  @Test
  void generate_setsVersion7AndTheRfcVariant() {
    for (int i = 0; i < 1_000; i++) {
      UUID id = UuidV7.generate();

      assertThat(id.version()).isEqualTo(7);
      assertThat(id.variant()).isEqualTo(2);
      assertThat(id.toString().charAt(14)).isEqualTo('7');
      assertThat(id.toString().charAt(19)).isIn('8', '9', 'a', 'b');
    }
  }

  @Test
  void generate_putsTheUnixMillisecondsInTheFirst48Bits() {
    long millis = 1_717_171_717_171L;

    UUID id = UuidV7.generate(millis);

    assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(millis);
    assertThat(id.toString())
        .startsWith(String.format("%08x-%04x", millis >>> 16, millis & 0xFFFF));
  }

  @Test
  void generate_isTimeOrderedAcrossMilliseconds() {
    long start = 1_700_000_000_000L;
    List<String> inOrder = new ArrayList<>();
    for (long ms = start; ms < start + 2_000; ms++) {
      inOrder.add(UuidV7.generate(ms).toString());
    }

    // Text order is the order both databases sort ids in (uuid bytes, or char(36) text).
    assertThat(inOrder).isSorted();
  }

  @Test
  void generate_nowIsAfterAnEarlierMillisecond() {
    UUID earlier = UuidV7.generate(System.currentTimeMillis() - 1);

    assertThat(UuidV7.generate().toString()).isGreaterThan(earlier.toString());
  }

  @Test
  void generate_isUniqueOver100kIds() {
    Set<UUID> ids = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      ids.add(UuidV7.generate());
    }

    assertThat(ids).hasSize(100_000);
  }

  @Test
  void generate_inTheSameMillisecond_variesTheRandomBits() {
    Set<UUID> ids = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      ids.add(UuidV7.generate(1_700_000_000_000L));
    }

    assertThat(ids).hasSize(10_000);
  }

  @Test
  void generate_oneAfterAnother_sortsInTheOrderMadeAsTextAndAsBytes() {
    List<UUID> made = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) { // many ids per millisecond, and past the sequence's end
      made.add(UuidV7.generate());
    }

    List<String> asText = made.stream().map(UUID::toString).toList();
    assertThat(asText).isSorted();
    assertThat(new HashSet<>(made)).hasSize(made.size());
    for (int i = 1; i < made.size(); i++) {
      assertThat(
              Long.compareUnsigned(
                  made.get(i).getMostSignificantBits(), made.get(i - 1).getMostSignificantBits()))
          .as("id %d after id %d", i, i - 1)
          .isPositive();
    }
  }
}
