package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockListener;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.FreePorts;
import dev.dlock.testkit.RecordingContext;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL restart while a lease is held, on one data directory and port: a short outage
 * leaves the row in place and the watchdog's next renewal keeps the lock; an outage longer than
 * the lease tells the holder it lost, and the lock goes to the next client.
 */
class PostgresRestartTest {
  private Path dataDir;
  private int port;
  private EmbeddedPostgres pg;
  private final Semaphore renewals = new Semaphore(0);
  private final LockListener countRenewals = new LockListener() {
    @Override
    public void renewed(String name, long token) {
      renewals.release();
    }
  };

  @BeforeEach
  void start() throws IOException {
    dataDir = Files.createTempDirectory("dlock-pg-restart");
    port = FreePorts.next();
    pg = startServer();
  }

  @AfterEach
  void stop() throws IOException {
    if (pg != null) {
      pg.close();
    }
  }

  private EmbeddedPostgres startServer() throws IOException {
    return EmbeddedPostgres.builder().setDataDirectory(dataDir).setCleanDataDirectory(false)
        .setPort(port).start();
  }

  private String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  private void restart() throws IOException {
    pg.close();
    pg = null;
    pg = startServer();
  }

  @Test
  void aRestartShorterThanTheLeaseKeepsTheLockByRenewal() throws Exception {
    try (LockClient holder = LockClient.builder().url(url()).leaseTime(Duration.ofSeconds(9))
            .listener(countRenewals).build();
        LockClient other = LockClient.connect(url())) {
      Lease lease = holder.lock("restart").acquire();
      assertThat(renewals.tryAcquire(10, TimeUnit.SECONDS)).as("a renewal before the restart").isTrue();

      restart();
      renewals.drainPermits();
      assertThat(renewals.tryAcquire(10, TimeUnit.SECONDS)).as("a renewal after the restart").isTrue();

      assertThat(lease.isValid()).isTrue();
      assertThat(lease.lost().toCompletableFuture()).isNotDone();
      assertThat(holder.inspect("restart")).hasValueSatisfying(
          info -> assertThat(info.token()).isEqualTo(lease.token()));
      assertThat(other.lock("restart").tryAcquire()).isEmpty();
      lease.close();
      assertThat(other.lock("restart").tryAcquire()).hasValueSatisfying(Lease::close);
    }
  }

  /**
   * Once the server is down its port has nobody listening: an acquire bounded to 2 s, as the
   * engine bounds one with a 2 s wait, fails by then, as BackendUnavailableException naming the
   * server, though the pool would wait 20 s for a new connection.
   */
  @Test
  void anAcquireAgainstAStoppedServerEndsByItsDeadline() throws Exception {
    LockBackend backend = JdbcLockBackend.builder().url(url()).connectTimeout(Duration.ofSeconds(20)).build();
    try {
      backend.start(new RecordingContext("a"));
      assertThat(backend.tryAcquire(LockRequest.exclusive("stopped", "a:1", Duration.ofSeconds(30), false)).isGranted()).isTrue();
      pg.close();
      pg = null;
      // The first call may meet the pooled connection the stop broke, and fail at once; the
      // second must wait for a new one.
      for (int call = 1; call <= 2; call++) {
        String name = "stopped-" + call;
        long start = System.nanoTime();
        assertThatThrownBy(() -> CallTimeout.within(Duration.ofSeconds(2).toNanos(),
                () -> backend.tryAcquire(LockRequest.exclusive(name, "a:2", Duration.ofSeconds(30), true))))
            .isInstanceOf(BackendUnavailableException.class).hasMessageContaining(url())
            .hasMessageContaining("'" + name + "'");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("call %d", call).isLessThan(Duration.ofSeconds(3));
      }
    } finally {
      backend.close();
    }
  }

  @Test
  void anOutageLongerThanTheLeaseTellsTheHolderItLost() throws Exception {
    try (LockClient holder = LockClient.builder().url(url()).leaseTime(Duration.ofSeconds(2))
            .build();
        LockClient other = LockClient.connect(url())) {
      Lease lease = holder.lock("outage").acquire();
      pg.close();
      pg = null;
      LeaseLostException lost = lease.lost().toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertThat(lost).hasMessageContaining("outage");
      pg = startServer();

      Lease next = other.lock("outage").acquire(Duration.ofSeconds(20));
      assertThat(next.token()).isGreaterThan(lease.token());
      assertThatThrownBy(lease::close).isInstanceOf(LeaseLostException.class);
      next.close();
    }
  }
}
