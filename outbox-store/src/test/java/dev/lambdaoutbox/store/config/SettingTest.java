package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingTest {
  private static final Setting COUNT = Setting.number("X_COUNT", Setting.Type.INTEGER, 5, 1, 9);
  private static final Setting WAIT_MS =
      Setting.number("X_WAIT_MS", Setting.Type.MILLISECONDS, 1_000, 10, 60_000);
  private static final Setting MODE =
      Setting.choice("X_MODE", "fast", List.of("fast", "safe"), "is not a mode; use fast or safe");

  @Test
  void anUnsetVariable_readsAsItsDeclaredDefault() {
    EnvironmentReader env = new EnvironmentReader(Map.of("X_COUNT", "  "));
    assertThat(env.integer(COUNT)).isEqualTo(5);
    assertThat(env.duration(WAIT_MS)).isEqualTo(Duration.ofSeconds(1));
    assertThat(env.choice(MODE)).isEqualTo("fast");
  }

  @Test
  void aValueOutsideTheDeclaredBounds_isRefusedNamingTheVariableAndTheValue() {
    EnvironmentReader env = new EnvironmentReader(Map.of("X_COUNT", "10", "X_WAIT_MS", "5"));
    assertThatThrownBy(() -> env.integer(COUNT))
        .hasMessage("X_COUNT: 10 is out of range; use a value from 1 to 9");
    assertThatThrownBy(() -> env.duration(WAIT_MS))
        .hasMessage("X_WAIT_MS: 5ms is out of range; use a value from 10 to 60000 (ms)");
  }

  @Test
  void aChoice_isExactUnlessDeclaredToIgnoreCase() {
    EnvironmentReader env = new EnvironmentReader(Map.of("X_MODE", "Safe"));
    assertThatThrownBy(() -> env.choice(MODE))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("X_MODE: 'Safe' is not a mode; use fast or safe");
    assertThat(env.choice(MODE.ignoringCase())).isEqualTo("safe");
  }

  @Test
  void aDeclaration_refusesADefaultOutsideItsBoundsOrChoices() {
    assertThatThrownBy(() -> Setting.number("X", Setting.Type.INTEGER, 0, 1, 9))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Setting.choice("X", "slow", List.of("fast"), "is not fast"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theSharedDeclarations_areNamedOnce_described_andEachRefusalNamesEveryChoice() {
    List<Setting> all = new ArrayList<>(DatabaseVariables.all());
    all.addAll(SharedVariables.all());
    Set<String> names = new HashSet<>();
    for (Setting s : all) {
      assertThat(names.add(s.name())).as("%s declared once", s).isTrue();
      assertThat(s.meaning()).as("%s has a meaning", s).isNotBlank();
      for (String choice : s.choices()) {
        assertThat(s.refusal()).as("%s's refusal names %s", s, choice).contains(choice);
      }
    }
    assertThat(names).hasSizeGreaterThan(20);
  }
}
