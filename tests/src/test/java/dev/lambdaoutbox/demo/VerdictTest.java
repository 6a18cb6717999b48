package dev.lambdaoutbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The demo's verdict: clean only when every committed event was applied once, and nothing else. */
class VerdictTest {
  private static final UUID A = UUID.randomUUID();
  private static final UUID B = UUID.randomUUID();
  private static final UUID ROLLED_BACK = UUID.randomUUID();

  @Test
  void everyCommittedEventAppliedOnce_isClean_andSaysHowManyCopiesTheInboxAbsorbed() {
    Verdict verdict = Verdict.of(List.of(A, B), List.of(A, B), 2, 3);
    assertThat(verdict.clean()).isTrue();
    assertThat(verdict.line())
        .isEqualTo("2 committed, 2 delivered, 0 lost, 3 duplicates absorbed, 0 phantom");
  }

  @Test
  void aCommittedEventNeverApplied_isLost() {
    Verdict verdict = Verdict.of(List.of(A, B), List.of(A), 1, 0);
    assertThat(verdict.clean()).isFalse();
    assertThat(verdict.line()).startsWith("2 committed, 1 delivered, 1 lost,");
  }

  @Test
  void anAppliedEventNobodyCommitted_isAPhantom() {
    Verdict verdict = Verdict.of(List.of(A), List.of(A, ROLLED_BACK), 2, 0);
    assertThat(verdict.clean()).isFalse();
    assertThat(verdict.line()).endsWith("1 phantom");
  }

  @Test
  void businessLogicRunTwiceForOneEvent_isNotClean() {
    Verdict verdict = Verdict.of(List.of(A), List.of(A), 2, 0);
    assertThat(verdict.clean()).isFalse();
    assertThat(verdict.line()).endsWith(", 1 applied twice");
  }

  @Test
  void nothingCommitted_isNotAVerdict() {
    assertThat(Verdict.of(List.of(), List.of(), 0, 0).clean()).isFalse();
  }
}
