package dev.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.BackendUnavailableException;
import dev.dlock.Lease;
import dev.dlock.LeaseLostException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.spi.Ticker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The promise that a holder is told it lost its lock before anyone else can hold it, under a real
 * fault: the network path to the server freezes ({@link FaultProxy}), or the server process is
 * paused (SIGSTOP). For each lease (1, 3, 6 and 30 s by default, all at once) a holder keeps a
 * watchdog lock through the proxy while a contender on a direct connection waits for it. The
 * holder's loss signal must fire before the contender's grant, within a lease of the fault, and
 * its lease must be invalid from then on.
 *
 * <p>A backend's test class extends this suite and says how to reach its server and how to pause
 * it. The suite takes about two longest leases; keep one server per class.
 *
 * <p>Why the class may run beside the module's other test classes (where the module enables
 * JUnit's parallel execution) while its two tests run one after the other: it spends those leases
 * waiting on its own server, which its second test pauses.
 */
@Execution(ExecutionMode.CONCURRENT)
public abstract class LossDeadlineSuite {
  private final List<LockClient> clients = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

  /** For subclasses. */
  protected LossDeadlineSuite() {}

  /**
   * @return the server's address on loopback, which the proxy forwards to
   */
  protected abstract InetSocketAddress server();

  /**
   * A builder for a holder's client that reaches the server only through {@code 127.0.0.1:port},
   * configured so that a watchdog lock ({@code lock(name)}) lives {@code lease} at the server
   * without renewal: the client's lease time, or the session timeout where the session is the
   * lease.
   *
   * @param port  the proxy's port
   * @param lease the lease under test
   * @return a new, unbuilt builder
   */
  protected abstract LockClientBuilder throughProxy(int port, Duration lease);

  /**
   * @return a builder for a client connected straight to the server
   */
  protected abstract LockClientBuilder direct();

  /**
   * Pauses the server process, as SIGSTOP does.
   *
   * @throws Exception if it could not be paused
   */
  protected abstract void pauseServer() throws Exception;

  /**
   * Resumes the paused server process, as SIGCONT does.
   *
   * @throws Exception if it could not be resumed
   */
  protected abstract void resumeServer() throws Exception;

  /**
   * @return the leases tested at once; 1, 3, 6 and 30 s by default
   */
  protected List<Duration> leases() {
    return List.of(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(6), Duration.ofSeconds(30));
  }

  /**
   * @return how late a signal or a grant may come past the time it is due; 3 s by default
   */
  protected Duration slack() {
    return Duration.ofSeconds(3);
  }

  @AfterEach
  final void closeEverything() {
    for (LockClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // A holder cut off by the test may fail to release; its lease has ended anyway.
      }
    }
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception ignored) {
        // Best effort: the next test starts its own proxy.
      }
    }
  }

  @Test
  @Execution(ExecutionMode.SAME_THREAD)
  final void aFrozenNetworkTellsEachHolderBeforeAnotherClientIsGranted() throws Exception {
    FaultProxy proxy = proxy();
    List<Round> rounds = start(proxy);
    long faultAt = Ticker.system().read();
    proxy.freeze();
    check(rounds, faultAt);
    proxy.thaw();
  }

  @Test
  @Execution(ExecutionMode.SAME_THREAD)
  final void aPausedServerTellsEachHolderBeforeAnotherClientIsGranted() throws Exception {
    List<Round> rounds = start(proxy());
    long faultAt = Ticker.system().read();
    pauseServer();
    try {
      // Every holder must hear of its loss while the server is still paused, a lease after the fault.
      for (Round r : rounds) {
        long left = faultAt + longest().plus(slack()).toNanos() - Ticker.system().read();
        r.lostAt.get(Math.max(0, left), TimeUnit.NANOSECONDS);
      }
    } finally {
      resumeServer();
    }
    check(rounds, faultAt);
  }

  private FaultProxy proxy() throws IOException {
    FaultProxy proxy = FaultProxy.start(server());
    resources.add(proxy);
    return proxy;
  }

  private Duration longest() {
    return leases().stream().max(Duration::compareTo).orElseThrow();
  }

  /** One lease under test: its holder, the holder's loss time and the contender's grant. */
  private record Round(Duration lease, Lease held, CompletableFuture<Long> lostAt,
      CompletableFuture<Long> grantedAt, CompletableFuture<Long> tokenAfter) {}

  private List<Round> start(FaultProxy proxy) throws Exception {
    List<Round> rounds = new ArrayList<>();
    for (Duration lease : leases()) {
      String name = "loss-deadline-" + lease.toMillis() + "ms-"
          + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
      LockClient holder = keep(throughProxy(proxy.port(), lease).clientName("holder").build());
      LockClient contender = keep(direct().clientName("contender").build());
      Lease held = holder.lock(name).acquire(slack());
      CompletableFuture<Long> lostAt = new CompletableFuture<>();
      held.onLost(e -> lostAt.complete(Ticker.system().read()));
      CompletableFuture<Long> grantedAt = new CompletableFuture<>();
      CompletableFuture<Long> tokenAfter = new CompletableFuture<>();
      Duration patience = longest().multipliedBy(2).plus(slack());
      Thread waiter = new Thread(() -> contend(contender, name, patience, grantedAt, tokenAfter),
          "contender-" + name);
      waiter.setDaemon(true);
      waiter.start();
      rounds.add(new Round(lease, held, lostAt, grantedAt, tokenAfter));
    }
    return rounds;
  }

  /**
   * Waits for the lock; a paused server fails some calls meanwhile (or, on resuming, expires the
   * contender's own session), and the contender asks again until its patience runs out.
   */
  private static void contend(LockClient contender, String name, Duration patience,
      CompletableFuture<Long> grantedAt, CompletableFuture<Long> tokenAfter) {
    long end = Ticker.system().read() + patience.toNanos();
    while (true) {
      try (Lease next = contender.lock(name).acquire(Duration.ofNanos(Math.max(0, end - Ticker.system().read())))) {
        grantedAt.complete(Ticker.system().read());
        tokenAfter.complete(next.token());
        return;
      } catch (BackendUnavailableException | LeaseLostException e) {
        if (Ticker.system().read() - end > 0) {
          grantedAt.completeExceptionally(e);
          return;
        }
      } catch (Exception | Error e) {
        grantedAt.completeExceptionally(e);
        return;
      }
    }
  }

  private void check(List<Round> rounds, long faultAt) throws Exception {
    long patience = longest().multipliedBy(2).plus(slack()).toNanos();
    for (Round r : rounds) {
      long granted = r.grantedAt.get(Math.max(0, faultAt + patience - Ticker.system().read()), TimeUnit.NANOSECONDS);
      long lost = r.lostAt.getNow(0L);
      System.out.printf("%s, lease %s: the holder was told %d ms after the fault, another client was"
          + " granted %d ms after it%n", getClass().getSimpleName(), r.lease,
          TimeUnit.NANOSECONDS.toMillis(lost - faultAt), TimeUnit.NANOSECONDS.toMillis(granted - faultAt));
      assertThat(lost).as("the %s holder was told it lost the lock by the time another client got it",
          r.lease).isNotZero();
      assertThat(lost).as("the %s holder's loss came before the next grant", r.lease).isLessThan(granted);
      assertThat(Duration.ofNanos(lost - faultAt)).as("the %s holder heard of its loss within a lease of"
          + " the fault", r.lease).isLessThanOrEqualTo(r.lease.plus(slack()));
      assertThat(r.held.isValid()).as("the %s lease after its loss", r.lease).isFalse();
      // A backend may learn of the loss sooner (a suspended session); the deadline is the latest.
      assertThat(Duration.ofNanos(lost - r.held.validUntilNanos()))
          .as("how long after the %s lease's deadline its loss was told", r.lease)
          .isLessThan(Duration.ofMillis(500));
      assertThat(r.tokenAfter.get()).as("the token after the %s holder", r.lease).isGreaterThan(r.held.token());
    }
  }

  private LockClient keep(LockClient c) {
    clients.add(c);
    return c;
  }
}
