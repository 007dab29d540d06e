package dev.dlock.bench.targets;

import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.util.UUIDConverter;

/**
 * Spring Integration's {@link JdbcLockRegistry} on the run's PostgreSQL ({@link PgServer}), with
 * its defaults: a waiting {@code lock()} retries every 100 ms. Each client is what one application
 * would have: its own HikariCP pool of {@value PgServer#POOL_SIZE} connections, a
 * {@link DefaultLockRepository} (its own client id) and a registry. Wired by hand, as a Spring
 * context would, so the bench needs no application context.
 */
public final class SpringJdbcTarget implements Target {
  static final String NAME = "spring-jdbc";
  // The DDL for INT_LOCK and the rest of Spring Integration's tables, as the jar ships it.
  private static final String SCHEMA = "org/springframework/integration/jdbc/schema-postgresql.sql";

  static final String LEGEND = "spring-jdbc: Spring Integration JdbcLockRegistry with its defaults;"
      + " a waiting lock() retries every 100 ms.";

  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<DefaultLockRepository> repositories = new ArrayList<>();
  private final List<JdbcLockRegistry> registries = new ArrayList<>();
  private final Waits waits = new Waits();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> forkJvmArgs() {
    return PgServer.forkJvmArgs();
  }

  @Override
  public void setUp(int clients) {
    for (int i = 0; i < clients; i++) {
      HikariDataSource pool = PgServer.pool("spring-" + i);
      pools.add(pool);
      if (i == 0) {
        createSchema(pool);
      }
      DefaultLockRepository repository = new DefaultLockRepository(pool);
      repository.setTransactionManager(new DataSourceTransactionManager(pool));
      repository.afterPropertiesSet();
      repository.afterSingletonsInstantiated();
      repository.start();
      repositories.add(repository);
      registries.add(new JdbcLockRegistry(new WatchedLockRepository(repository, waits)));
    }
  }

  /** Runs the shipped script once per server; it has no IF NOT EXISTS, so look first. */
  private static void createSchema(DataSource ds) {
    Boolean exists = new JdbcTemplate(ds).queryForObject(
        "SELECT to_regclass('int_lock') IS NOT NULL", Boolean.class);
    if (!Boolean.TRUE.equals(exists)) {
      new ResourceDatabasePopulator(new ClassPathResource(SCHEMA)).execute(ds);
    }
  }

  @Override
  public Lock lock(int client, String key) {
    return registries.get(client).obtain(key);
  }

  /** Returns once a client's try at {@code key} failed, so it sleeps until its next try. */
  @Override
  public void awaitWaiter(String key) throws InterruptedException {
    // The registry keys its rows by this UUID of the lock key.
    waits.await(UUIDConverter.getUUID(key).toString());
  }

  @Override
  public void tearDown() {
    // close() deletes the rows this repository's client id still holds, then the pool goes.
    repositories.forEach(DefaultLockRepository::close);
    pools.forEach(HikariDataSource::close);
    repositories.clear();
    registries.clear();
    pools.clear();
    waits.clear();
  }
}
