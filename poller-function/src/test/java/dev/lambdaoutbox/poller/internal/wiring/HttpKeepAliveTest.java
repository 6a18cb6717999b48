package dev.lambdaoutbox.poller.internal.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The poller lets the JDK keep a connection per publish thread, and never overrides a value the
 * user set. (That the JDK then reuses them, end to end in a fresh JVM: {@code
 * PackagedPollerConnectionReuseTest} in the tests module.)
 */
class HttpKeepAliveTest {
  private String before;

  @BeforeEach
  void saveProperty() {
    before = System.getProperty(HttpKeepAlive.PROPERTY);
    System.clearProperty(HttpKeepAlive.PROPERTY);
  }

  @AfterEach
  void restoreProperty() {
    if (before == null) {
      System.clearProperty(HttpKeepAlive.PROPERTY);
    } else {
      System.setProperty(HttpKeepAlive.PROPERTY, before);
    }
  }

  @Test
  void moreThreadsThanTheJdkKeeps_raisesThePropertyToThem() {
    HttpKeepAlive.keepAtLeast(8);

    assertThat(System.getProperty(HttpKeepAlive.PROPERTY)).isEqualTo("8");
  }

  @Test
  void asManyAsTheJdkKeepsOrFewer_leavesThePropertyUnset() {
    HttpKeepAlive.keepAtLeast(HttpKeepAlive.JDK_DEFAULT);
    HttpKeepAlive.keepAtLeast(1);

    assertThat(System.getProperty(HttpKeepAlive.PROPERTY)).isNull();
  }

  @Test
  void aValueTheUserSet_stands_evenWhenSmaller() {
    System.setProperty(HttpKeepAlive.PROPERTY, "3");

    HttpKeepAlive.keepAtLeast(32);

    assertThat(System.getProperty(HttpKeepAlive.PROPERTY)).isEqualTo("3");
  }
}
