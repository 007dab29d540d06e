package dev.dlock.bench.targets;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's {@link JdbcTemplateLockProvider} on the run's PostgreSQL ({@link PgServer}), using the
 * database clock as dlock does. Each client is its own provider on its own HikariCP pool of
 * {@value PgServer#POOL_SIZE} connections. ShedLock can only try: see {@link ShedLockLock} for how
 * {@code lock()} waits.
 */
public final class ShedLockTarget implements Target {
  static final String NAME = "shedlock-jdbc";
  /** The longest a lock is held if its holder dies: dlock's default lease, for the same promise. */
  static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(30);

  static final String LEGEND = "shedlock-jdbc: ShedLock JdbcTemplateLockProvider (DB time); it can only"
      + " try, so the bench's lock() retries tryLock() every " + ShedLockLock.RETRY_MILLIS + " ms.";

  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<LockProvider> providers = new ArrayList<>();
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
      HikariDataSource pool = PgServer.pool("shedlock-" + i);
      pools.add(pool);
      JdbcTemplate jdbc = new JdbcTemplate(pool);
      if (i == 0) {
        // ShedLock ships no DDL; this is the table its documentation describes.
        jdbc.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
            + " lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL,"
            + " locked_by VARCHAR(255) NOT NULL)");
      }
      providers.add(new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
          .withJdbcTemplate(jdbc)
          .usingDbTime()
          .withLockedByValue("bench-" + i)
          .build()));
    }
  }

  @Override
  public Lock lock(int client, String key) {
    return new ShedLockLock(providers.get(client), key, LOCK_AT_MOST_FOR, waits);
  }

  /** Returns once a client's {@code lock()} found {@code key} held and began to retry. */
  @Override
  public void awaitWaiter(String key) throws InterruptedException {
    waits.await(key);
  }

  @Override
  public void tearDown() {
    pools.forEach(HikariDataSource::close);
    pools.clear();
    providers.clear();
    waits.clear();
  }
}
