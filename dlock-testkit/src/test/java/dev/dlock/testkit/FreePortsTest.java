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
    int ephemeralLow = ephemeralLow();
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

  /** A Redis Cluster node's port and its bus port, 10,000 above it, are both free and below the range. */
  @Test
  void aPortAndItsPartnerAreBothBelowTheEphemeralRangeAndBindable() throws Exception {
    int ephemeralLow = ephemeralLow();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = FreePorts.nextWithPartner(10_000);
      assertThat(port).isGreaterThanOrEqualTo(FreePorts.LOW).isLessThan(ephemeralLow - 10_000);
      assertThat(seen.add(port) && seen.add(port + 10_000)).as("port %d or its partner handed out again", port).isTrue();
      assertThat(FreePorts.next()).as("a single port").isNotIn(seen);
    }
    int port = FreePorts.nextWithPartner(10_000);
    try (ServerSocket s = new ServerSocket(port); ServerSocket bus = new ServerSocket(port + 10_000)) {
      assertThat(bus.getLocalPort()).isEqualTo(s.getLocalPort() + 10_000);
    }
    assertThatThrownBy(() -> FreePorts.nextWithPartner(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offset must be from 1 up to 10000, but was 0");
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

  private static int ephemeralLow() throws java.io.IOException {
    String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
    return Integer.parseInt(range.trim().split("\\s+")[0]);
  }
}
