package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The conformance suite on session locks in an in-memory H2, each client opened by URL. */
class H2SessionConformanceTest extends SessionConformance {
  @RegisterExtension
  static final H2Database database = new H2Database();

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().url(database.url() + ";dlockMode=session");
  }

}
