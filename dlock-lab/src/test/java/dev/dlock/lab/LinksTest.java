package dev.dlock.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class LinksTest {
  @Test
  void eachWorkerGetsItsOwnPathToEveryNodeInTheUrl() throws Exception {
    try (Links links = Links.open("redlock://127.0.0.1:7001,127.0.0.1:700,127.0.0.1:7011?prefix=x",
        List.of(7001, 700, 7011), 2)) {
      String one = links.url(1);
      String two = links.url(2);
      assertThat(one).startsWith("redlock://127.0.0.1:").endsWith("?prefix=x").doesNotContain(":7001,", ":700,");
      assertThat(one.split(",")).hasSize(3);
      assertThat(one).isNotEqualTo(two);
      assertThat(links.nodes()).isEqualTo(3);
    }
  }

  @Test
  void badArgumentsAreNamed() throws Exception {
    assertThatThrownBy(() -> Links.open("redis://127.0.0.1:6001", List.of(6002), 1))
        .hasMessageContaining("6001").hasMessageContaining("[6002]");
    assertThatThrownBy(() -> Links.open("redis://127.0.0.1:6001", List.of(6001), 0))
        .hasMessageContaining("was 0");
    try (Links links = Links.open("redis://127.0.0.1:6001", List.of(6001), 1)) {
      assertThatThrownBy(() -> links.url(2)).hasMessageContaining("1..1, was 2");
      assertThatThrownBy(() -> links.cut(1, List.of(1))).hasMessageContaining("0..0, was 1");
    }
  }

  @Test
  void tellsWhichNodeAWorkerTalksToAndACutPathGoesSilent() throws Exception {
    try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
      List<Integer> ports = List.of(a.getLocalPort(), b.getLocalPort());
      try (Links links = Links.open("x://127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1), ports, 1)) {
        assertThat(links.node(1)).isEqualTo(OptionalInt.empty());
        int pathToB = Integer.parseInt(links.url(1).replaceAll(".*,127\\.0\\.0\\.1:", ""));
        try (Socket client = new Socket()) {
          client.connect(new InetSocketAddress("127.0.0.1", pathToB));
          try (Socket server = b.accept()) {
            Poll.until(Duration.ofSeconds(5), () -> {
              if (!links.node(1).equals(OptionalInt.of(1))) {
                throw new IllegalStateException("no connection through the path to node 1 yet");
              }
              return null;
            });
            client.getOutputStream().write(1);
            assertThat(server.getInputStream().read()).isEqualTo(1);
            links.cut(1, List.of(1));
            client.getOutputStream().write(2);
            server.setSoTimeout(300);
            assertThatThrownBy(() -> server.getInputStream().read()).isInstanceOf(java.net.SocketTimeoutException.class);
            links.heal();
            server.setSoTimeout(5_000);
            assertThat(server.getInputStream().read()).as("the held byte, after the heal").isEqualTo(2);
          }
        }
      }
    }
  }
}
