package dev.dlock.engine;

import dev.dlock.LockClient;
import dev.dlock.mem.MemServer;
import org.junit.jupiter.api.AfterEach;

/** Two clients of one {@code mem:} server, all three on one driven {@link FakeTicker}. */
abstract class DrivenClients {
  final FakeTicker ticker = new FakeTicker();
  final MemServer server = MemServer.create(ticker);
  final LockClient a = client();
  final LockClient b = client();

  private LockClient client() {
    return LockClient.builder().backend(server.newBackend()).ticker(ticker).build();
  }

  @AfterEach
  final void closeClients() {
    a.close();
    b.close();
  }
}
