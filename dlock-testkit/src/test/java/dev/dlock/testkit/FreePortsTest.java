package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  /**
   * Ports come from below the ephemeral range, where no outgoing connection takes its local port,
   * are never handed out twice, and a server can bind them.
   */
  @Test
  void portsAreBelowTheEphemeralRangeDistinctAndBindable() throws Exception {
    int ephemeralLow = Integer.parseInt(
        Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+")[0]);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int port = FreePorts.next();
      assertThat(port).isGreaterThanOrEqualTo(FreePorts.LOW).isLessThan(ephemeralLow);
      assertThat(seen.add(port)).as("port %d handed out again", port).isTrue();
    }
    int port = FreePorts.next();
    try (ServerSocket s = new ServerSocket(port)) {
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }

  /** A port another server holds is not handed out, even where it is the only one. */
  @Test
  void aPortInUseIsNotHandedOut() throws Exception {
    try (ServerSocket held = new ServerSocket(0)) {
      int port = held.getLocalPort();
      assertThatThrownBy(() -> FreePorts.next(port, port + 1)).isInstanceOf(IllegalStateException.class)
          .hasMessage("no free port from " + port + " up to " + (port + 1) + " in 1,000 tries");
    }
  }
}
