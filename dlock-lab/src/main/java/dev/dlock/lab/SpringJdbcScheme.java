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
final class SpringJdbcScheme {
  private SpringJdbcScheme() {}

  /** Opens the peer for worker {@code process} on the PostgreSQL at peer URL {@code url}. */
  static Scheme open(String url, String process, Duration lease) throws Exception {
    HikariDataSource pool = PeerPool.open(url, "spring-jdbc-" + process, PeerTables.INT_LOCK);
    DefaultLockRepository repository;
    try {
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
    return new SpringLockScheme("spring-jdbc", new JdbcLockRegistry(repository), process, lease, () -> {
      try {
        repository.close(); // deletes the rows this client still holds
      } finally {
        pool.close();
      }
    });
  }
}
