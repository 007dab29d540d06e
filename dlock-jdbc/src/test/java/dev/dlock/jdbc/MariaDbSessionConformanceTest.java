package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The conformance suite on session locks in a real MariaDB, each client opened by URL with its own pool. */
class MariaDbSessionConformanceTest extends SessionConformance {
  @RegisterExtension
  static final MariaDbServer server = new MariaDbServer();

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().url(server.url() + "&dlockMode=session");
  }

}
