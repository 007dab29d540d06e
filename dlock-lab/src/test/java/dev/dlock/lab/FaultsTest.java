package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FaultsTest {
  @Test
  void refusesBadArguments() {
    assertThatThrownBy(() -> Faults.signal(1, "STOP")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 1");
    assertThatThrownBy(() -> Faults.signal(0, "KILL")).hasMessageContaining("was 0");
    assertThatThrownBy(() -> Faults.signal(-5, "KILL")).hasMessageContaining("was -5");
    assertThatThrownBy(() -> Faults.signal(1234, "-9")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'-9'");
    assertThatThrownBy(() -> Faults.signal(1234, "STOP 1")).hasMessageContaining("'STOP 1'");
  }

  @Test
  void aProcessThatIsGoneIsNamedWithKillsMessage() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    long pid = p.pid();
    assertThatThrownBy(() -> Faults.cont(pid)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kill -CONT " + pid).hasMessageContaining("No such process");
  }

  @Test
  void stopContAndKillActOnAChild() throws Exception {
    Process p = new ProcessBuilder("sleep", "60").start();
    try {
      Faults.stop(p.pid());
      Poll.until(Duration.ofSeconds(5), () -> state(p.pid()).equals("T") ? true : fail(state(p.pid())));
      Faults.cont(p.pid());
      Poll.until(Duration.ofSeconds(5), () -> state(p.pid()).equals("S") ? true : fail(state(p.pid())));
      Faults.kill(p.pid());
      assertThat(p.waitFor()).isEqualTo(137);
    } finally {
      p.destroyForcibly();
    }
  }

  private static boolean fail(String state) {
    throw new IllegalStateException("state " + state);
  }

  private static String state(long pid) throws Exception {
    String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  }
}
