package dev.dlock.jdbc;

import static dev.dlock.jdbc.TestDatabase.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockClient;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.WaitsAtServer;
import dev.dlock.testkit.RecordingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.util.PSQLException;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Faults of a real PostgreSQL under a running backend: its sessions ended by the administrator
 * (pg_terminate_backend, as a fast shutdown does), and the whole server paused (SIGSTOP, as a long
 * pause of its machine would). Each call ends in BackendUnavailableException naming the server
 * without its password, by the caller's deadline, and the backend carries on once the server does.
 */
// Beside the module's other classes, as it spends its time waiting on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("the class's own faulted PostgreSQL")
class PostgresFaultTest {
  private static final Duration LONG = Duration.ofSeconds(30);
  private static final Duration WAIT = Duration.ofSeconds(2);
  /** What a deadline may be overrun by: CallTimeout's minimum for a last call, and scheduling. */
  private static final Duration SLACK = Duration.ofSeconds(1);
  @RegisterExtension
  static final PostgresServer server = new PostgresServer();
  private final List<LockBackend> backends = new ArrayList<>();

  @AfterEach
  void closeBackends() {
    backends.forEach(LockBackend::close);
  }

  private LockBackend backend(JdbcLockBackend.Builder builder) {
    LockBackend b = builder.build();
    backends.add(b);
    b.start(new RecordingContext("a"));
    return b;
  }

  private static Grant granted(LockBackend b, String name, String owner) {
    Attempt a = b.tryAcquire(LockRequest.exclusive(name, owner, LONG, false));
    assertThat(a.isGranted()).as("%s", a).isTrue();
    return new Grant(name, owner, a.token());
  }

  private static String redactedUrl() {
    return server.url() + "&password=***";
  }

  /** Runs {@code call} bounded to {@code limit}, as the engine does; asserts it ended in time. */
  private static <T> T within(Duration limit, Supplier<T> call) {
    long start = System.nanoTime();
    try {
      return CallTimeout.within(limit.toNanos(), call::get);
    } finally {
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time taken").isLessThan(limit.plus(SLACK));
    }
  }

  /** What {@code call}, bounded to {@code limit}, threw. */
  private static Throwable failsWithin(Duration limit, Supplier<?> call) {
    Throwable t = catchThrowable(() -> within(limit, call));
    if (t instanceof AssertionError late) {
      throw late;
    }
    return t;
  }

  private static void assertUnavailable(Throwable t) {
    assertThat(t).isInstanceOf(BackendUnavailableException.class).hasMessageContaining(redactedUrl());
    Secrets.assertHidden(t, SECRET);
  }

  @Test
  void sessionsEndedByTheAdministratorAreUnavailableAndTheBackendCarriesOn() throws Exception {
    // A pool that never re-checks a connection before lending it, so the next call meets the
    // ended session itself instead of a replacement the pool made.
    LockBackend b;
    System.setProperty("com.zaxxer.hikari.aliveBypassWindowMs", "600000");
    try {
      b = backend(JdbcLockBackend.builder().url(server.passwordUrl()).poolSize(1));
    } finally {
      System.clearProperty("com.zaxxer.hikari.aliveBypassWindowMs");
    }
    Grant held = granted(b, "terminated", "a:1");
    assertThat(server.query("SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
        + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")).isNotEqualTo("0");

    Throwable t = catchThrowable(() -> b.tryAcquire(LockRequest.exclusive("other", "a:2", LONG, false)));
    assertUnavailable(t);
    assertThat(t).hasMessageContaining("'other'").hasRootCauseInstanceOf(PSQLException.class);
    assertThat(((PSQLException) t.getCause()).getSQLState()).isEqualTo("57P01");

    assertThat(b.renew(List.of(held), LONG)).as("the next call, on a new session").isEmpty();
    assertThat(b.release(held)).isTrue();
  }

  @Test
  void callsAgainstAPausedServerEndByTheirDeadline() throws Exception {
    // Timeouts of their own far longer than the deadlines: only the deadlines can end the calls.
    LockBackend b = backend(JdbcLockBackend.builder().url(server.passwordUrl())
        .connectTimeout(Duration.ofSeconds(20)).queryTimeout(Duration.ofSeconds(20)));
    LockBackend s = backend(JdbcLockBackend.builder().url(server.passwordUrl()).session()
        .connectTimeout(Duration.ofSeconds(20)).queryTimeout(Duration.ofSeconds(20)));
    Grant held = granted(b, "paused", "a:1");
    Grant pinned = granted(s, "paused-session", "a:1");
    try (Paused paused = Paused.pause(server.postmasterPid())) {
      assertUnavailable(failsWithin(WAIT, () -> b.tryAcquire(LockRequest.exclusive("paused-2", "a:2", LONG, true))));
      assertUnavailable(failsWithin(Duration.ofSeconds(1), () -> b.renew(List.of(held), LONG)));
      assertUnavailable(failsWithin(WAIT, () -> {
        try {
          return ((WaitsAtServer) s).acquireWaiting("paused-session-2", "a:2", LONG, Duration.ofSeconds(10));
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }));
      assertThat(within(Duration.ofSeconds(1), () -> s.renew(List.of(pinned), LONG)))
          .as("a session lock whose connection did not answer in time").containsExactly(pinned);
      assertUnavailable(failsWithin(JdbcLockBackend.DEFAULT_CONNECT_TIMEOUT,
          () -> LockClient.connect(server.passwordUrl())));
      assertUnavailable(failsWithin(Duration.ofSeconds(1),
          () -> LockClient.connect(server.passwordUrl() + "&connectTimeout=1s")));
    }
    granted(b, "resumed", "a:3");
  }

  /**
   * A call with no deadline of its own, on a pool dlock made for a URL, whose connections carry
   * their read timeout from the start (the backend no longer sets it on each borrow): against a
   * paused server it still ends by that read timeout, here 1 s of query timeout and 2 s of margin.
   */
  @Test
  void aCallWithNoDeadlineAgainstAPausedServerEndsByTheReadTimeout() throws Exception {
    LockBackend b = backend(JdbcLockBackend.builder().url(server.passwordUrl())
        .connectTimeout(Duration.ofSeconds(2)).queryTimeout(Duration.ofSeconds(1)));
    granted(b, "unbounded", "a:1"); // the pool's connection, used just now, is not checked again
    try (Paused paused = Paused.pause(server.postmasterPid())) {
      long start = System.nanoTime();
      Throwable t = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> catchThrowable(
          () -> b.tryAcquire(LockRequest.exclusive("unbounded-2", "a:2", LONG, false))));
      assertUnavailable(t);
      // 3 s of read; a retry on a new connection adds at most the connect timeout and a check.
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time taken")
          .isGreaterThanOrEqualTo(Duration.ofMillis(2900)).isLessThan(Duration.ofSeconds(10));
    }
  }
}
