package dev.dlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dlock.BackendUnavailableException;
import dev.dlock.LockClient;
import dev.dlock.LockTimeoutException;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockRequest;
import dev.dlock.testkit.RecordingContext;
import dev.dlock.testkit.Signals;
import io.lettuce.core.RedisCommandTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A wait limit is a limit, whatever the server does: an acquire with a 2 s wait against a paused
 * server (SIGSTOP) or a stopped one ends within 2 s + 1 s, on every URL form, and a connect to a
 * port that never answers ends within connectTimeout + 1 s. Direct SPI calls get their bound from
 * {@link CallTimeout#within}; the LockClient cases get it from the engine.
 */
// Beside the module's other classes, as it spends its time waiting on servers of its own; its
// cases one after another (the lock makes them share the class's thread).
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("each case's own Redis servers")
class RedisWaitDeadlineTest {
  private static final Duration WAIT = Duration.ofSeconds(2);
  private static final Duration SLACK = Duration.ofSeconds(1);
  /**
   * A client's first connect also starts its I/O threads and, first in a JVM, loads Netty: over a
   * second on a busy CI machine. Still far below the command timeout a hanging connect would take.
   */
  private static final Duration CONNECT_SLACK = Duration.ofSeconds(3);
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void anAcquireAgainstAPausedServerEndsByItsDeadline() throws Exception {
    try (RedisTestServer server = RedisTestServer.start()) {
      LockBackend backend = started(server.url(), "paused");
      try (LockClient client = LockClient.connect(server.url())) {
        server.pause();
        Throwable direct = failsWithin(WAIT.plus(SLACK), () -> CallTimeout.within(WAIT.toNanos(),
            () -> backend.tryAcquire(LockRequest.exclusive("paused-spi", "paused:1", LEASE, true))));
        assertThat(direct).isInstanceOf(BackendUnavailableException.class)
            .hasMessageContaining(server.url()).hasMessageContaining("failed to acquire lock 'paused-spi'")
            .hasMessageContaining("caller's deadline")
            .hasCauseInstanceOf(RedisCommandTimeoutException.class);
        assertFailedByDeadline(failsWithin(WAIT.plus(SLACK), () -> client.lock("paused").acquire(WAIT)),
            server.url());
      } finally {
        server.resume();
        backend.close();
      }
    }
  }

  @Test
  void anAcquireAgainstAStoppedServerEndsByItsDeadlineAndWhatTimedOutIsNeverSent() throws Exception {
    try (RedisTestServer server = RedisTestServer.start()) {
      RecordingContext context = new RecordingContext("stopped");
      LockBackend backend = new RedisBackendProvider().open(server.url());
      backend.start(context);
      ExecutorService threads = Executors.newFixedThreadPool(20);
      try {
        try (LockClient client = LockClient.connect(server.url())) {
          server.stop();
          Throwable direct = failsWithin(WAIT.plus(SLACK), () -> CallTimeout.within(WAIT.toNanos(),
              () -> backend.tryAcquire(LockRequest.exclusive("stopped", "stopped:1", LEASE, true))));
          assertThat(direct).isInstanceOf(BackendUnavailableException.class)
              .hasMessageContaining(server.url()).hasCauseInstanceOf(RedisCommandTimeoutException.class);
          assertFailedByDeadline(failsWithin(WAIT.plus(SLACK), () -> client.lock("stopped-client").acquire(WAIT)),
              server.url());
        }
        // Twenty more give up while it is down; the queued commands are cancelled, not kept for later.
        List<Future<Throwable>> tries = new ArrayList<>();
        for (int i = 2; i < 22; i++) {
          String owner = "stopped:" + i;
          tries.add(threads.submit(() -> catchThrowable(() -> CallTimeout.within(
              Duration.ofMillis(300).toNanos(), () -> backend.tryAcquire(LockRequest.exclusive("stopped", owner, LEASE, true))))));
        }
        for (Future<Throwable> t : tries) {
          assertThat(t.get()).isInstanceOf(BackendUnavailableException.class);
        }
        server.startAgain();
        // The restarted server knows the acquire script at once, so a replayed acquire would grant.
        server.admin().sync().scriptLoad(new String(Scripts.resource("acquire.lua"), StandardCharsets.UTF_8));
        assertThat(context.nextReconnect(Duration.ofSeconds(10))).as("the reconnect").isNotNull();
        // Sent after anything still queued, so by its answer the server has seen all of it.
        assertThat(backend.inspect("stopped")).as("a lock granted by a command that timed out").isEmpty();
        assertThat(server.admin().sync().keys("dlock:{stopped}*")).isEmpty();
        assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("EVALSHAs since the restart: inspect's")
            .isLessThanOrEqualTo(2);
      } finally {
        threads.shutdownNow();
        backend.close();
      }
    }
  }

  @Test
  void aReplicaWaitNeverOutlastsTheCallersDeadline() throws Exception {
    // No replica will ever acknowledge: the WAIT fails the grant, and may block the connection
    // at the server no longer than the caller's deadline allows, or the next call would stall.
    try (RedisTestServer server = RedisTestServer.start()) {
      String url = server.url() + "?waitReplicas=1&waitTimeout=10s";
      try (LockClient client = LockClient.connect(url)) {
        Throwable e = failsWithin(WAIT.plus(SLACK), () -> client.lock("unreplicated").acquire(WAIT));
        assertThat(e).isInstanceOf(BackendUnavailableException.class).hasMessageContaining("replica");
        long start = System.nanoTime();
        assertThat(client.inspect("unreplicated")).as("the grant, released").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the next call").isLessThan(SLACK);
      }
    }
  }

  /**
   * Until the client has seen its connection drop: a command sent before that goes to the closing
   * socket, not to the queue whose limit is under test. Lettuce tells no event here, so this looks.
   */
  private static void awaitDisconnected(Connections connections) {
    long deadline = System.nanoTime() + SLACK.toNanos() * 10;
    while (connections.isOpen()) {
      assertThat(System.nanoTime() - deadline).as("the client saw the server go").isNegative();
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
  }

  @Test
  void aServerThatIsDownCannotPileCommandsUp() throws Exception {
    try (RedisTestServer server = RedisTestServer.start()) {
      Connections connections = Connections.open(RedisUrl.parse(server.url()));
      try {
        server.stop();
        awaitDisconnected(connections);
        List<io.lettuce.core.RedisFuture<String>> queued = new ArrayList<>();
        for (int i = 0; i <= Connections.QUEUE_LIMIT; i++) {
          queued.add(connections.commands().ping());
        }
        io.lettuce.core.RedisFuture<String> over = queued.get(Connections.QUEUE_LIMIT);
        assertThat(over.isDone()).as("the command past the limit, failed at once").isTrue();
        assertThat(catchThrowable(over::get)).hasMessageContaining("queue");
        assertThat(queued.get(0).isDone()).as("a command within the limit, still queued").isFalse();
      } finally {
        connections.close();
      }
    }
  }

  @Test
  void anAcquireAgainstAPausedSentinelMasterEndsByItsDeadline() throws Exception {
    try (SentinelServers servers = SentinelServers.start(1);
        LockClient client = LockClient.connect(servers.url(""));
        Paused master = new Paused(servers.masterPort())) {
      assertFailedByDeadline(failsWithin(WAIT.plus(SLACK), () -> client.lock("paused").acquire(WAIT)),
          servers.url(""));
    }
  }

  @Test
  void anAcquireAgainstAPausedClusterEndsByItsDeadline() throws Exception {
    try (ClusterServers servers = ClusterServers.start();
        LockClient client = LockClient.connect(servers.url(""));
        Paused all = new Paused(servers.ports().stream().mapToInt(Integer::intValue).toArray())) {
      assertFailedByDeadline(failsWithin(WAIT.plus(SLACK), () -> client.lock("paused").acquire(WAIT)),
          servers.url(""));
    }
  }

  @Test
  void aRedlockAcquireEndsByItsDeadlineHoweverLongTheNodeTimeout() throws Exception {
    try (RedisTestServer a = RedisTestServer.start(); RedisTestServer b = RedisTestServer.start();
        RedisTestServer c = RedisTestServer.start()) {
      String url = "redlock://127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port() + ",127.0.0.1:" + c.port()
          + "?nodeTimeout=10s&timeout=10s";
      try (LockClient client = LockClient.connect(url);
          Paused two = new Paused(a.port(), b.port())) {
        assertFailedByDeadline(failsWithin(WAIT.plus(SLACK), () -> client.lock("paused").acquire(WAIT)), url);
      }
    }
  }

  @Test
  void aConnectToAPortWhereNothingListensFailsAtOnce() {
    String url = "redis://127.0.0.1:" + RedisTestServer.freePort();
    // Untimed first: the first Lettuce client of a JVM loads and starts Netty, which took seconds
    // on a loaded machine (4.3 s at load 7) and is not what this measures.
    catchThrowable(() -> LockClient.connect(url));
    Throwable e = failsWithin(RedisUrl.DEFAULT_CONNECT_TIMEOUT.plus(SLACK), () -> LockClient.connect(url));
    assertThat(e).isInstanceOf(BackendUnavailableException.class).hasMessageContaining(url).hasCauseInstanceOf(
        io.lettuce.core.RedisConnectionException.class);
  }

  @Test
  void aConnectToAPortThatNeverAnswersFailsAfterConnectTimeoutOnEveryUrlForm() throws Exception {
    try (SilentPort p1 = new SilentPort(); SilentPort p2 = new SilentPort(); SilentPort p3 = new SilentPort()) {
      String one = "127.0.0.1:" + p1.port();
      String three = one + ",127.0.0.1:" + p2.port() + ",127.0.0.1:" + p3.port();
      assertUnreachableWithin("redis://" + one, RedisUrl.DEFAULT_CONNECT_TIMEOUT);
      for (String url : List.of("redis://" + one, "redis-sentinel://" + one + "/m", "redis-cluster://" + one,
          "redlock://" + three)) {
        assertUnreachableWithin(url + "?connectTimeout=500ms", Duration.ofMillis(500));
      }
    }
  }

  private static void assertUnreachableWithin(String url, Duration connectTimeout) {
    Throwable e = failsWithin(connectTimeout.plus(CONNECT_SLACK), () -> LockClient.connect(url));
    assertThat(e).as(url).isInstanceOf(BackendUnavailableException.class).hasMessageContaining(url);
    assertThat(e.getCause()).as(url).isNotNull();
  }

  private static LockBackend started(String url, String clientId) {
    LockBackend backend = new RedisBackendProvider().open(url);
    backend.start(new RecordingContext(clientId));
    return backend;
  }

  /** Runs {@code call}, which must fail, and within {@code limit}; its failure. */
  private static Throwable failsWithin(Duration limit, ThrowingCallable call) {
    long start = System.nanoTime();
    Throwable e = catchThrowable(call);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(e).as("the failure").isNotNull();
    assertThat(took).as("time until %s", e).isLessThan(limit);
    return e;
  }

  /** Timed out, or failed naming the server and keeping the cause. */
  private static void assertFailedByDeadline(Throwable e, String url) {
    assertThat(e).isInstanceOfAny(LockTimeoutException.class, BackendUnavailableException.class)
        .hasMessageContaining(url);
    if (e instanceof BackendUnavailableException) {
      assertThat(e.getCause()).isNotNull();
    }
  }

  /** Redis processes held with SIGSTOP until closed, which sends SIGCONT. */
  private static final class Paused implements AutoCloseable {
    private final List<Long> pids = new ArrayList<>();

    Paused(int... ports) {
      for (int port : ports) {
        pids.add(RedisTestServer.pidOf(port));
      }
      for (long pid : pids) {
        Signals.send("STOP", pid);
      }
    }

    @Override
    public void close() {
      for (long pid : pids) {
        Signals.send("CONT", pid);
      }
    }
  }
}
