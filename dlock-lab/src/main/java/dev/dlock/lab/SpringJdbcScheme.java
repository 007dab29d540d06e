package dev.dlock.lab;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The peer {@code spring-jdbc}: Spring Integration's {@code JdbcLockRegistry} over a
 * {@code DefaultLockRepository} on PostgreSQL, wired by hand as a Spring context would wire it,
 * with the repository's time to live the lab's lease and everything else left at its default (a
 * waiting {@code tryLock} tries every 100 ms). Each worker's repository has its own client id, as
 * each application instance has.
 *
 * <p>Why no renewal: the registry renews only when its user calls {@code renewLock}; a user who
 * sets a time to live longer than the work needs none, and the lab's work is far shorter than its
 * lease. The time to live is by the client's clock. The registry never tells a holder its time is
 * up and has no token; its {@code unlock()} throws {@code ConcurrentModificationException} when
 * the row is no longer this client's, which is a release that freed nothing.
 */
final class SpringJdbcScheme implements Scheme {
  private final HikariDataSource pool;
  private final DefaultLockRepository repository;
  private final JdbcLockRegistry registry;
  private final String process;
  private final Duration lease;

  SpringJdbcScheme(String url, String process, Duration lease) throws Exception {
    this.process = process;
    this.lease = lease;
    pool = new HikariDataSource();
    try {
      pool.setJdbcUrl(PeerUrl.jdbc(url));
      pool.setMaximumPoolSize(2);
      pool.setPoolName("spring-jdbc-" + process);
      PeerTables.create(pool, PeerTables.INT_LOCK);
      repository = new DefaultLockRepository(pool);
      repository.setTimeToLive(Math.toIntExact(lease.toMillis()));
      repository.setTransactionManager(new DataSourceTransactionManager(pool));
      repository.afterPropertiesSet();
      repository.afterSingletonsInstantiated();
      repository.start();
    } catch (Exception e) {
      pool.close();
      throw e;
    }
    registry = new JdbcLockRegistry(repository);
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    Schemes.checkLease("spring-jdbc", this.lease, lease);
    return SpringLocks.tryLock(registry, lock, wait, process);
  }

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {
    try {
      repository.close(); // deletes the rows this client still holds
    } finally {
      pool.close();
    }
  }
}
