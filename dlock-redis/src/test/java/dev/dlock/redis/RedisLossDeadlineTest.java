package dev.dlock.redis;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.testkit.LossDeadlineSuite;
import dev.dlock.testkit.Signals;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** On one redis-server: a holder cut off by a frozen path, or by a paused server, is told first. */
class RedisLossDeadlineTest extends LossDeadlineSuite {
  @RegisterExtension
  static final RedisTestServer SERVER = RedisTestServer.perClass();

  @Override
  protected InetSocketAddress server() {
    return new InetSocketAddress("127.0.0.1", SERVER.port());
  }

  @Override
  protected LockClientBuilder throughProxy(int port, Duration lease) {
    return LockClient.builder().url("redis://127.0.0.1:" + port).leaseTime(lease);
  }

  @Override
  protected LockClientBuilder direct() {
    return LockClient.builder().url(SERVER.url());
  }

  @Override
  protected void pauseServer() {
    Signals.send("STOP", pid());
  }

  @Override
  protected void resumeServer() {
    Signals.send("CONT", pid);
  }

  private long pid;

  private long pid() {
    for (String line : SERVER.admin().sync().info("server").split("\r?\n")) {
      if (line.startsWith("process_id:")) {
        pid = Long.parseLong(line.substring("process_id:".length()).trim());
        return pid;
      }
    }
    throw new AssertionError("INFO server named no process_id");
  }
}
