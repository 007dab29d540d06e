package dev.dlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every wait ends by its deadline, whatever the server does: stopped (connections refused) or
 * paused with SIGSTOP (connections open, nothing answers, as in a long GC pause or a hung host).
 * The paused server runs in a JVM of its own ({@link ZkServerProcess}): curator-test's servers run
 * inside the test JVM, which the signal would stop as well. The URLs set a long connect timeout,
 * so that only the caller's deadline ({@link CallTimeout}) can end a call in time; the connect
 * timeout's own default is tested at open, where no caller's deadline applies.
 */
// Beside the module's other classes, as it spends its time waiting on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("the class's own paused ZooKeeper server")
class DeadlineTest {
  private static final Duration WAIT = Duration.ofSeconds(2);
  /** The issue allows 250 ms past the deadline; a loaded test machine gets a second. */
  private static final Duration SLACK = Duration.ofSeconds(1);
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static ZkServerProcess paused;

  @BeforeAll
  static void startServer() throws Exception {
    paused = ZkServerProcess.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    paused.close();
  }

  /** Runs {@code call} and returns how long it took, checking it failed as {@code type} naming {@code url}. */
  private static Duration timed(String url, Class<? extends RuntimeException> type, Runnable call) {
    long start = System.nanoTime();
    assertThatThrownBy(call::run).isInstanceOf(type).hasMessageContaining(url);
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static <T> Runnable within(Duration limit, Supplier<T> call) {
    return () -> CallTimeout.within(limit.toNanos(), call::get);
  }

  private static ZooKeeperBackend open(String connectString, String params) {
    ZooKeeperBackend b = ZooKeeperBackendProvider.open(ZkServers.url(connectString, params), null);
    b.start(new RecordingContext("deadline"));
    return b;
  }

  @Test
  void callsAgainstAPausedServerEndByTheCallersDeadline() throws Exception {
    // A session timeout long enough that the client does not give up the connection by itself
    // during the test: only the deadline can end the calls.
    try (ZooKeeperBackend b = open(paused.connectString(), "sessionTimeout=20s&connectTimeout=30s")) {
      Attempt held = b.tryAcquire(LockRequest.exclusive("held", "deadline:1", LEASE, false));
      Grant grant = new Grant("held", "deadline:1", held.token());
      paused.pause();
      try {
        assertThat(timed(paused.connectString(), BackendUnavailableException.class,
            within(WAIT, () -> b.tryAcquire(LockRequest.exclusive("p", "deadline:2", LEASE, true)))))
            .as("a waiting acquire bounded to 2 s").isLessThan(WAIT.plus(SLACK));
        assertThat(timed(paused.connectString(), BackendUnavailableException.class,
            within(Duration.ofMillis(500), () -> b.tryAcquire(LockRequest.exclusive("q", "deadline:3", LEASE, false)))))
            .as("a one-shot try bounded to 500 ms").isLessThan(Duration.ofMillis(500).plus(SLACK));
        assertThat(timed(paused.connectString(), BackendUnavailableException.class,
            within(WAIT, () -> b.renew(List.of(grant), LEASE))))
            .as("a renewal, which asks the server, bounded to 2 s").isLessThan(WAIT.plus(SLACK));
        assertThat(timed(paused.connectString(), BackendUnavailableException.class,
            within(WAIT, () -> b.release(grant))))
            .as("a release bounded to 2 s").isLessThan(WAIT.plus(SLACK));
        assertThat(timed(paused.connectString(), BackendUnavailableException.class,
            within(WAIT, () -> b.inspect("held"))))
            .as("an inspection bounded to 2 s").isLessThan(WAIT.plus(SLACK));
      } finally {
        paused.resume();
      }
    }
  }

  @Test
  void callsAgainstAStoppedServerEndByTheCallersDeadline() throws Exception {
    try (TestingServer stopped = ZkServers.server();
        ZooKeeperBackend b = open(stopped.getConnectString(), "sessionTimeout=20s&connectTimeout=30s")) {
      Attempt held = b.tryAcquire(LockRequest.exclusive("held", "deadline:1", LEASE, false));
      stopped.stop();
      assertThat(timed(stopped.getConnectString(), BackendUnavailableException.class,
          within(WAIT, () -> b.tryAcquire(LockRequest.exclusive("s", "deadline:2", LEASE, true)))))
          .as("a waiting acquire bounded to 2 s").isLessThan(WAIT.plus(SLACK));
      assertThat(timed(stopped.getConnectString(), BackendUnavailableException.class,
          within(WAIT, () -> b.renew(List.of(new Grant("held", "deadline:1", held.token())), LEASE))))
          .as("a renewal").isLessThan(SLACK);
    }
  }

  @Test
  void anUnreachableOrPausedServerIsReportedAtOpenWithinTheDefaultConnectTimeout() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Duration limit = Duration.ofSeconds(2).plus(SLACK); // the default connect timeout, 2 s
    assertThat(timed("127.0.0.1:" + closed, BackendUnavailableException.class,
        () -> LockClient.builder().url("zookeeper://127.0.0.1:" + closed).build()))
        .as("open with nothing listening").isLessThan(limit);
    paused.pause();
    try {
      String url = "zookeeper://" + paused.connectString();
      assertThat(timed(paused.connectString(), BackendUnavailableException.class,
          () -> LockClient.builder().url(url).build()))
          .as("open against a paused server").isLessThan(limit);
    } finally {
      paused.resume();
    }
  }

  @Test
  void aTwoSecondWaitThroughTheClientEndsInTimeAgainstAPausedOrStoppedServer() throws Exception {
    String pausedUrl = ZkServers.url(paused.connectString(), "sessionTimeout=20s&connectTimeout=30s");
    try (TestingServer stopped = ZkServers.server();
        LockClient onPaused = LockClient.builder().url(pausedUrl).build();
        LockClient onStopped = LockClient.builder()
            .url(ZkServers.url(stopped.getConnectString(), "sessionTimeout=20s&connectTimeout=30s")).build()) {
      stopped.stop();
      assertThat(timedWait(onStopped, stopped.getConnectString())).as("against a stopped server")
          .isLessThan(WAIT.plus(SLACK));
      paused.pause();
      try {
        assertThat(timedWait(onPaused, paused.connectString())).as("against a paused server")
            .isLessThan(WAIT.plus(SLACK));
      } finally {
        paused.resume();
      }
    }
  }

  /** A 2 s wait for a lock: it must fail, by timing out or naming the server. */
  private static Duration timedWait(LockClient client, String server) {
    long start = System.nanoTime();
    assertThatThrownBy(() -> client.lock("w").acquire(WAIT))
        .isInstanceOfAny(LockTimeoutException.class, BackendUnavailableException.class)
        .satisfies(e -> {
          if (e instanceof BackendUnavailableException) {
            assertThat(e).hasMessageContaining(server);
          }
        });
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
