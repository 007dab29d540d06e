package dev.dlock.redis;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LeaderLatchCases;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The leader latch on one redis-server: a leader that closes, or is cut off, hands leadership on. */
class RedisLeaderLatchTest extends LeaderLatchCases {
  @RegisterExtension
  static final RedisTestServer SERVER = RedisTestServer.perClass();

  @Override
  protected InetSocketAddress server() {
    return new InetSocketAddress("127.0.0.1", SERVER.port());
  }

  @Override
  protected LockClientBuilder throughProxy(int port, Duration lease) {
    // A short command timeout: closing the cut-off leader's client gives up on its dead path soon.
    return LockClient.builder().url("redis://127.0.0.1:" + port + "?timeout=1s").leaseTime(lease);
  }
}
