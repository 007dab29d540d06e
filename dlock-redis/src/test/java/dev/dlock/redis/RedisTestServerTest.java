package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The test server itself: a port taken between finding it free and binding it is not a failure. */
class RedisTestServerTest {
  @Test
  void aFirstStartWhosePortIsTakenMovesToAnother() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        RedisTestServer server = RedisTestServer.startNear(taken.getLocalPort())) {
      assertThat(server.port()).isNotEqualTo(taken.getLocalPort());
      assertThat(server.admin().sync().ping()).isEqualTo("PONG");
    }
  }
}
