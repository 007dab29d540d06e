package dev.dlock.jdbc;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The conformance suite on session locks in a real PostgreSQL, each client opened by URL with its own pool. */
// Beside the module's other classes, as it spends its time on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("the class's own PostgreSQL for the session suites")
class PostgresSessionConformanceTest extends SessionConformance {
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();

  @Override
  protected LockClientBuilder newClientBuilder() {
    return LockClient.builder().url(server.url() + "&dlockMode=session");
  }

}
