package dev.dlock.lab;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The peer {@code shedlock-jdbc}: ShedLock's {@code JdbcTemplateLockProvider} on PostgreSQL, with
 * the database's clock ({@code usingDbTime()}), {@code lockAtMostFor} the lab's lease and no
 * {@code lockAtLeastFor}. Each worker is a node of its own: its {@code lockedBy} is its process
 * name, where ShedLock would take the host name, which all the lab's workers share.
 *
 * <p>Why a retry loop: ShedLock only tries ({@code lock()} returns at once), so this waits as a
 * user must, trying again every {@value #RETRY_MILLIS} ms until the wait runs out. ShedLock has no
 * token and never tells a holder its time is up. Its {@code unlock()} reports nothing, but its
 * UPDATE names this worker's {@code lockedBy}, so it frees this worker's row or nothing; the
 * release says this worker's name, which is never counted as freeing another's lock.
 */
final class ShedLockScheme implements Scheme {
  static final long RETRY_MILLIS = 5;

  private final HikariDataSource pool;
  private final JdbcTemplateLockProvider provider;
  private final String process;
  private final Duration lease;

  ShedLockScheme(String url, String process, Duration lease) throws Exception {
    this.process = process;
    this.lease = lease;
    pool = PeerPool.open(url, "shedlock-" + process, PeerTables.SHEDLOCK);
    provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
        .withJdbcTemplate(new JdbcTemplate(pool)).usingDbTime().withLockedByValue(process).build());
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    Schemes.checkLease("shedlock-jdbc", this.lease, lease);
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<SimpleLock> got = provider.lock(new LockConfiguration(Instant.now(), lock, lease, Duration.ZERO));
      if (got.isPresent()) {
        SimpleLock l = got.get();
        return new PlainHeld(() -> {
          l.unlock();
          return process;
        });
      }
      if (System.nanoTime() - deadline >= 0) {
        return null;
      }
      TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
    }
  }

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {
    pool.close();
  }
}
