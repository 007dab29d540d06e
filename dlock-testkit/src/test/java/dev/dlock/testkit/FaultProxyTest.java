package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FaultProxyTest {
  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void withoutPatienceARefusedTargetClosesTheClient() throws Exception {
    int port = freePort();
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", port));
        Socket client = new Socket("127.0.0.1", proxy.port())) {
      client.setSoTimeout(5_000);
      assertThat(client.getInputStream().read()).as("end of stream").isEqualTo(-1);
    }
  }

  @Test
  void withPatienceATargetThatOpensLaterGetsTheHeldBytes() throws Exception {
    int port = freePort();
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", port), Duration.ofSeconds(5));
        Socket client = new Socket("127.0.0.1", proxy.port())) {
      client.getOutputStream().write(7);
      try (ServerSocket target = new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
          Socket server = target.accept()) {
        server.setSoTimeout(5_000);
        assertThat(server.getInputStream().read()).as("the byte sent before the target listened").isEqualTo(7);
        assertThat(proxy.connections()).isEqualTo(1);
      }
    }
  }

  @Test
  void aNegativePatienceIsRefused() {
    assertThatThrownBy(() -> FaultProxy.start(new InetSocketAddress("127.0.0.1", 1), Duration.ofMillis(-1)))
        .hasMessageContaining("PT-0.001S");
  }
}
