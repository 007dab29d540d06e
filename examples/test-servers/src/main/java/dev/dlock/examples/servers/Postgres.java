package dev.dlock.examples.servers;

import dev.dlock.testkit.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real PostgreSQL server for one test class:
 * {@code @RegisterExtension static final Postgres POSTGRES = new Postgres();}. It starts before the
 * class's {@code @BeforeAll} methods and stops after its {@code @AfterAll} ones.
 */
public final class Postgres implements BeforeAllCallback, AfterAllCallback {
  private EmbeddedPostgres server;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    server = EmbeddedPostgres.builder().setPort(FreePorts.next()).start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    server.close();
  }

  /** The JDBC URL of the database {@code postgres}, user {@code postgres}, no password. */
  public String jdbcUrl() {
    return server.getJdbcUrl("postgres", "postgres");
  }
}
