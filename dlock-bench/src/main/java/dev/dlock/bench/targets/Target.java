package dev.dlock.bench.targets;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * One lock implementation under benchmark. A target opens some "clients" (connections, sessions,
 * or nothing at all for an in-JVM lock) and hands out a {@link Lock} per client and key, so
 * benchmark threads spread over clients contend the way separate processes would.
 *
 * <p>Lifecycle: {@link #setUp}, then any number of {@link #lock} calls from any thread, then
 * {@link #tearDown}. One instance serves one benchmark run; the registry ({@link Targets}) makes a
 * fresh one each time.
 */
public interface Target {

  /** How long {@link #awaitWaiter} may wait before it decides the waiter is stuck. */
  Duration WAITER_TIMEOUT = Duration.ofSeconds(10);

  /** The registry name, as given to {@code --targets}. */
  String name();

  /**
   * JVM options a JMH fork needs to reach what this target uses, such as the URL of a server the
   * parent JVM started. Called in the parent before forking, on a target that is not set up.
   */
  default List<String> forkJvmArgs() {
    return List.of();
  }

  /** Opens {@code clients} connections (or whatever stands for them). */
  void setUp(int clients) throws Exception;

  /**
   * The lock for {@code key} as client number {@code client} sees it. Two clients' locks on one key
   * exclude each other. Called outside the measured code, so it may be slow.
   *
   * @param client 0 to {@code clients - 1}
   */
  Lock lock(int client, String key);

  /**
   * The lock W4 passes between its two players, client 0's and client 1's. The default is
   * {@link #lock}; a floor whose W1 lock cannot wait overrides it.
   */
  default Lock handoffLock(int client, String key) {
    return lock(client, key);
  }

  /**
   * Returns once another thread is blocked (or about to block) acquiring {@code key}, so a handoff
   * measures a wake-up rather than a race between unlock and lock. Called by the holder once the
   * waiter has announced it is calling {@code lock()}, once per waiter.
   *
   * <p>The default only yields for 200 µs, for targets that cannot tell; override it when the target
   * can observe its queue.
   *
   * @throws IllegalStateException if no waiter shows up within {@link #WAITER_TIMEOUT}
   */
  default void awaitWaiter(String key) throws InterruptedException {
    // Yielding rather than spinning leaves the core to the waiter if it needs it to get queued.
    long end = System.nanoTime() + 200_000;
    while (System.nanoTime() - end < 0) {
      Thread.yield();
    }
  }

  /** Closes what {@link #setUp} opened. */
  void tearDown() throws Exception;
}
