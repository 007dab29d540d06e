package dev.dlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockListener;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session lock (S3) through real clients against a real database: exclusion, a server-side
 * wait that ends promptly on release with polling turned off, tokens, interrupts while the server
 * waits, and the loss of a holder whose connection the server killed. Each database runs it in a
 * subclass that starts the server and knows how to see waiters and kill a holder's session.
 */
abstract class SessionLockCases {
  /** Far longer than any assertion waits, so only the server can end a wait in time. */
  private static final Duration NO_POLL = Duration.ofSeconds(60);
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private static final AtomicInteger SEQ = new AtomicInteger();

  private final List<LockClient> clients = new ArrayList<>();

  /** The database the subclass started. */
  abstract TestDatabase db();

  /** The database's URL with {@code dlockMode=session} appended. */
  abstract String sessionUrl();

  /** How many sessions are waiting at the server for a lock now. */
  abstract int waitingSessions(Statement s) throws SQLException;

  /** Kills the server session holding the session lock of {@code name}; no other lock is held. */
  abstract void killHolder(Statement s, String name) throws SQLException;

  @AfterEach
  void closeAll() {
    clients.forEach(LockClient::close);
  }

  private static String name() {
    return "session-" + SEQ.incrementAndGet() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
  }

  /** A client by URL (odd calls) or by builder (even calls), both in session mode. */
  private LockClient client(Duration lease) {
    return client(lease, new LockListener() {});
  }

  private LockClient client(Duration lease, LockListener listener) {
    LockClientBuilder b = clients.size() % 2 == 0
        ? LockClient.builder().url(sessionUrl())
        : LockClient.builder().backend(JdbcLockBackend.builder().url(db().url()).session().build());
    LockClient c = b.leaseTime(lease).maxPollInterval(NO_POLL).listener(listener).build();
    clients.add(c);
    return c;
  }

  /** A listener that counts down once the client's first try found the lock held. */
  private static LockListener onWaited(CountDownLatch waited) {
    return new LockListener() {
      @Override
      public void waited(String name) {
        waited.countDown();
      }
    };
  }

  /** Waits until the client waits at the server: past its first try, with a session blocked. */
  private void awaitWaiter(CountDownLatch waited) throws Exception {
    assertThat(waited.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the waiter found the lock held").isTrue();
    awaitWaiters(1);
  }

  private void awaitWaiters(int n) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    try (Connection c = db().dataSource().getConnection(); Statement s = c.createStatement()) {
      while (waitingSessions(s) < n) {
        assertThat(System.nanoTime()).as("%d session(s) waiting at the server", n).isLessThan(deadline);
        Thread.onSpinWait();
      }
    }
  }

  @Test
  void heldLockExcludesAnotherClientUntilReleased() throws Exception {
    String name = name();
    DistributedLock a = client(PATIENCE).lock(name);
    DistributedLock b = client(PATIENCE).lock(name);
    try (Lease held = a.acquire()) {
      assertThat(b.tryAcquire()).isEmpty();
      assertThat(b.tryAcquire(Duration.ofMillis(300))).isEmpty();
    }
    Optional<Lease> next = b.tryAcquire();
    assertThat(next).isPresent();
    next.get().close();
  }

  @Test
  void blockedWaiterIsGrantedPromptlyOnReleaseWithoutPolling() throws Exception {
    String name = name();
    DistributedLock a = client(PATIENCE).lock(name);
    CountDownLatch waited = new CountDownLatch(1);
    DistributedLock b = client(PATIENCE, onWaited(waited)).lock(name);
    Lease held = a.acquire();
    AtomicReference<Long> grantedAt = new AtomicReference<>();
    CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
      try (Lease l = b.acquire(Duration.ofSeconds(30))) {
        grantedAt.set(System.nanoTime());
        return l.token();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    awaitWaiter(waited);
    long releasedAt = System.nanoTime();
    held.close();
    long token = waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(token).isGreaterThan(held.token());
    assertThat(Duration.ofNanos(grantedAt.get() - releasedAt)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void tokensStrictlyIncreaseAcrossGrantsAndClients() throws Exception {
    String name = name();
    List<DistributedLock> locks = List.of(client(PATIENCE).lock(name), client(PATIENCE).lock(name));
    long last = 0;
    for (int i = 0; i < 6; i++) {
      try (Lease l = locks.get(i % 2).acquire(PATIENCE)) {
        assertThat(l.token()).isGreaterThan(last);
        last = l.token();
      }
    }
  }

  @Test
  void tokensKeepRisingAfterTheLockRowIsDeleted() throws Exception {
    String name = name();
    DistributedLock lock = client(PATIENCE).lock(name);
    long first;
    try (Lease l = lock.acquire(PATIENCE)) {
      first = l.token();
    }
    db().forget(name);
    try (Lease l = lock.acquire(PATIENCE)) {
      assertThat(l.token()).as("the token after the row was deleted").isGreaterThan(first);
    }
  }

  /** The database comes back empty (tables and H2's sequence gone): the client makes them again. */
  @Test
  void aTableDroppedWhileRunningIsMadeAgain() throws Exception {
    String name = name();
    LockClient client = client(PATIENCE);
    long first;
    try (Lease l = client.lock(name).acquire(PATIENCE)) {
      first = l.token();
    }
    db().execute("DROP TABLE dlock_locks_waiters", "DROP TABLE dlock_locks",
        "DROP SEQUENCE IF EXISTS dlock_locks_token_seq");
    try (Lease l = client.lock(name).tryAcquire().orElseThrow()) {
      assertThat(l.token()).as("the token after the tables were made again").isGreaterThan(first);
    }
    try (Lease l = client.lock(name()).acquire(PATIENCE)) {
      assertThat(l.token()).isGreaterThan(first);
    }
  }

  @Test
  void interruptWhileWaitingAtTheServerThrowsAndLeavesTheLockFree() throws Exception {
    String name = name();
    DistributedLock a = client(PATIENCE).lock(name);
    CountDownLatch waited = new CountDownLatch(1);
    DistributedLock b = client(PATIENCE, onWaited(waited)).lock(name);
    Lease held = a.acquire();
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread waiter = new Thread(() -> {
      try {
        b.acquire(Duration.ofSeconds(30)).close();
      } catch (Throwable t) {
        outcome.set(t);
      } finally {
        interrupted.countDown();
      }
    });
    waiter.start();
    awaitWaiter(waited);
    long start = System.nanoTime();
    waiter.interrupt();
    assertThat(interrupted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .as(() -> "the interrupted waiter ended; it is at " + stackOf(waiter)).isTrue();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    held.close();
    DistributedLock c = client(PATIENCE).lock(name);
    Optional<Lease> free = c.tryAcquire(PATIENCE);
    assertThat(free).as("the lock is free once its holder released it").isPresent();
    free.get().close();
  }

  @Test
  void killingTheHoldersConnectionFreesTheLockAndSignalsTheLoss() throws Exception {
    String name = name();
    DistributedLock a = client(Duration.ofMillis(900)).lock(name);
    DistributedLock b = client(PATIENCE).lock(name);
    Lease held = a.acquire();
    CompletableFuture<LeaseLostException> lost = held.lost().toCompletableFuture();
    try (Connection c = db().dataSource().getConnection(); Statement s = c.createStatement()) {
      killHolder(s, name);
    }
    assertThat(lost.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isNotNull();
    Optional<Lease> next = b.tryAcquire(PATIENCE);
    assertThat(next).isPresent();
    assertThat(next.get().token()).isGreaterThan(held.token());
    next.get().close();
  }

  private static String stackOf(Thread t) {
    StringBuilder b = new StringBuilder();
    for (StackTraceElement e : t.getStackTrace()) {
      b.append("\n  at ").append(e);
    }
    return b.toString();
  }

  /** The first column of the first row as an int. */
  static int queryInt(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }
}
