package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.internal.Abandonable;
import dev.dlock.spi.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Per-test plumbing shared by the case groups: clients made from the backend under test and closed
 * after each test, unique lock names, worker threads and the suite's timing knobs.
 */
final class SuiteFixture {
  /** Longest lock name the suite makes; short enough for backends with small name limits. */
  private static final int MAX_NAME = 60;

  private final SuiteBase suite;
  private final List<LockClient> clients = new CopyOnWriteArrayList<>();
  private final Map<LockClient, EventRecorder> recorders = new ConcurrentHashMap<>();
  private final List<Worker<?>> workers = new CopyOnWriteArrayList<>();
  private final AtomicInteger clientSeq = new AtomicInteger();
  private volatile String testName = "test";

  SuiteFixture(SuiteBase suite) {
    this.suite = suite;
  }

  void begin(String testName) {
    this.testName = testName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
  }

  /** Closes every client the test made (idempotent, so ones the test closed are fine) and its workers. */
  void end() throws InterruptedException {
    AssertionError problems = null;
    for (LockClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException | Error e) {
        if (problems == null) {
          problems = new AssertionError("closing the test's clients failed");
        }
        problems.addSuppressed(e);
      }
    }
    for (Worker<?> w : workers) {
      // Closing the clients fails every waiter, so workers end unless stuck in the test's own latches.
      w.stop(Duration.ofMillis(200));
    }
    clients.clear();
    recorders.clear();
    workers.clear();
    if (problems != null) {
      throw problems;
    }
  }

  // ---- timing

  Duration lease() {
    return positive(suite.testLease(), "testLease()");
  }

  Duration slack() {
    return positive(suite.timingSlack(), "timingSlack()");
  }

  /** A bound for whole workloads that should take far less; it only stops a hung test. */
  Duration patience() {
    return slack().multipliedBy(20);
  }

  private static Duration positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalStateException(what + " must be positive, was " + d);
    }
    return d;
  }

  static Duration since(long startNanos) {
    return Duration.ofNanos(Ticker.system().read() - startNanos);
  }

  // ---- names and clients

  /** A lock name no other test, run or suite on a shared server uses. */
  String name() {
    return name("lock");
  }

  String name(String role) {
    String suffix = "-" + role + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    String prefix = testName.length() + suffix.length() > MAX_NAME
        ? testName.substring(0, Math.max(1, MAX_NAME - suffix.length()))
        : testName;
    return prefix + suffix;
  }

  LockClient client() {
    return client(b -> { });
  }

  /** A client on a fresh connection, with an {@link EventRecorder}; {@code settings} may adjust it. */
  LockClient client(Consumer<LockClientBuilder> settings) {
    LockClientBuilder builder = suite.newClientBuilder();
    if (builder == null) {
      throw new IllegalStateException("newClientBuilder() returned null");
    }
    EventRecorder recorder = new EventRecorder();
    builder.clientName("conformance" + clientSeq.incrementAndGet()).listener(recorder);
    settings.accept(builder);
    LockClient client = builder.build();
    clients.add(client);
    recorders.put(client, recorder);
    return client;
  }

  EventRecorder events(LockClient client) {
    EventRecorder r = recorders.get(client);
    if (r == null) {
      throw new IllegalArgumentException("not a client of this test: " + client);
    }
    return r;
  }

  /** Kills a client as if its process died: renewal stops and nothing is released. */
  void crash(LockClient client) {
    if (!(client instanceof Abandonable)) {
      throw new AssertionError("the client " + client + " does not implement "
          + Abandonable.class.getName() + ", so the suite cannot simulate its crash");
    }
    ((Abandonable) client).abandon();
  }

  // ---- threads

  <T> Worker<T> start(String what, Callable<T> body) {
    Worker<T> w = new Worker<>(testName + "-" + what, body);
    workers.add(w);
    return w.start();
  }

  // ---- shared checks

  boolean notifies() {
    return suite.notifiesReleases();
  }

  /**
   * A client for a waiter whose wake-ups are counted: it never polls when the backend notifies, so
   * only a notification can move it; otherwise it keeps the default polling.
   */
  LockClient waitingClient() {
    return notifies() ? client(b -> b.maxPollInterval(Duration.ofHours(1))) : client();
  }

  /**
   * Parks a waiter on a fresh client, runs {@code release}, and asserts that the release itself
   * wakes that waiter, which then acquires promptly. The waiter never polls, so only a notification
   * can move it: an earlier waiter that left its queue entry behind would swallow the notification,
   * and the waiter would sit until the holder's lease ran out.
   */
  void assertReleaseWakesFreshWaiter(String name, Runnable release) throws InterruptedException {
    LockClient client = waitingClient();
    DistributedLock lock = client.lock(name);
    Duration patience = patience();
    Worker<Long> waiter = start("fresh-waiter", () -> {
      try (Lease lease = lock.acquire(patience)) {
        return lease.token();
      }
    });
    EventRecorder events = events(client);
    events.awaitCount(EventRecorder.Kind.WAITED, name, 1, slack());
    release.run();
    waiter.join(slack());
    assertThat(events.count(EventRecorder.Kind.WOKEN, name))
        .as("wake-ups of the waiter that queued after the earlier ones gave up")
        .isEqualTo(notifies() ? 1 : 0);
  }
}
