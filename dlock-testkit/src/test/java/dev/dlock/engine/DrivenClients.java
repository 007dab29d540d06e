package dev.dlock.engine;

import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import dev.dlock.testkit.VirtualTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Two clients of one {@code mem:} server, all three on one {@link VirtualTime}: the clock, the
 * server's expiry and the clients' timers move only when a test advances it.
 */
abstract class DrivenClients {
  final VirtualTime time = new VirtualTime();
  final MemServer server = MemServer.create(time.ticker());
  private final List<LockClient> clients = new ArrayList<>();
  final LockClient a = client();
  final LockClient b = client();

  private LockClient client() {
    return track(LockClient.builder().backend(server.newBackend()).ticker(time.ticker())
        .scheduler(time.scheduler()).build());
  }

  /**
   * A client on the same clock whose timers never run, as if its timer thread were late: it learns
   * that a lease ran out only when it looks at it, or when the server says so.
   */
  final LockClient lateClient() {
    return track(LockClient.builder().backend(server.newBackend()).ticker(time.ticker())
        .scheduler(new VirtualTime().scheduler()).build());
  }

  private LockClient track(LockClient c) {
    clients.add(c);
    return c;
  }

  @AfterEach
  final void closeClients() {
    clients.forEach(LockClient::close);
  }
}
