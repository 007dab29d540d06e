package dev.dlock.zookeeper;

import dev.dlock.BackendUnavailableException;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

/**
 * One Curator-managed ZooKeeper session and the rule for retrying calls on it. Why raw ZooKeeper
 * calls on Curator's handle rather than Curator's builders: Curator repeats a create after a
 * connection loss blindly, which can leak a sequential node; here Curator only keeps the
 * connection (reconnects, new sessions, state events) and every call is an {@link Op} written to
 * be safe to repeat (the create looks for its node before creating again). Curator's retry policy
 * therefore never runs, and is set to retry nothing, so that only this class decides how long a
 * call may take: the connect timeout, shortened to the caller's deadline ({@link CallTimeout}),
 * for the call and every retry and wait for a connection within it. Calls ignore interrupts while
 * they run (the flag is kept), so a release or cancel on an interrupted thread still happens, and
 * past their bound they throw {@link BackendUnavailableException}.
 */
final class ZkSession implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  /** One ZooKeeper call, repeated as a whole after a connection loss. */
  interface Op<T> {
    T run(Requests zk) throws KeeperException, InterruptedException;
  }

  final ZkUrl url;
  final List<ACL> acl;
  private final CuratorFramework curator;
  private final ScheduledThreadPoolExecutor reports = reports();
  private volatile Ticker ticker = Ticker.system();
  private final AtomicLong lastContact = new AtomicLong(ticker.read());
  private volatile boolean closed;

  private ZkSession(ZkUrl url, CuratorFramework curator) {
    this.url = url;
    this.curator = curator;
    this.acl = url.hasCredentials() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
  }

  private static ScheduledThreadPoolExecutor reports() {
    ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "dlock-zookeeper-reports-"));
    e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    e.setRemoveOnCancelPolicy(true);
    return e;
  }

  private static Thread daemon(Runnable r, String prefix) {
    Thread t = new Thread(r, prefix + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  }

  /** Connects, or throws {@link BackendUnavailableException} after the connect timeout. */
  static ZkSession open(ZkUrl url, @Nullable ZookeeperFactory factory) {
    long limit = CallTimeout.boundNanos(url.connectTimeout().toNanos());
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
        .connectString(url.hosts())
        .sessionTimeoutMs((int) url.sessionTimeout().toMillis())
        .connectionTimeoutMs((int) url.connectTimeout().toMillis())
        .retryPolicy(new RetryNTimes(0, 0))
        .ensembleTracker(false)
        .threadFactory(r -> daemon(r, "dlock-zookeeper-"));
    if (url.hasCredentials()) {
      b.authorization("digest", (url.user() + ":" + url.password()).getBytes(StandardCharsets.UTF_8));
    }
    if (factory != null) {
      b.zookeeperFactory(factory);
    }
    CuratorFramework curator = b.build();
    ZkSession session = new ZkSession(url, curator);
    boolean connected = false;
    try {
      curator.start();
      connected = curator.blockUntilConnected((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(limit)),
          TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      session.closeLater();
      throw new BackendUnavailableException(String.format(
          "interrupted while connecting to %s", url.redacted()), e);
    } catch (RuntimeException e) {
      session.closeLater();
      throw new BackendUnavailableException(String.format("cannot connect to %s: %s", url.redacted(), e), e);
    }
    if (!connected) {
      session.closeLater();
      throw new BackendUnavailableException(String.format(
          "cannot connect to %s: no server answered within %d ms (connectTimeout)",
          url.redacted(), TimeUnit.NANOSECONDS.toMillis(limit)));
    }
    return session;
  }

  /** From now on, times are read from the engine's clock. */
  void useTicker(Ticker engineTicker) {
    ticker = engineTicker;
    lastContact.set(engineTicker.read());
  }

  long now() {
    return ticker.read();
  }

  /** Runs {@code task} on this session's own thread, never on ZooKeeper's event thread. */
  void report(Runnable task) {
    try {
      reports.execute(task);
    } catch (RejectedExecutionException closing) {
      // Closed: nobody is left to tell.
    }
  }

  /**
   * Runs {@code task} on this session's own thread after {@code delayNanos} of the system's
   * monotonic clock (the scheduler's, not {@link #now}), never after close.
   */
  void later(Runnable task, long delayNanos) {
    try {
      reports.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // Closed: nothing is left to do.
    }
  }

  void addListener(ConnectionStateListener listener) {
    curator.getConnectionStateListenable().addListener(listener);
  }

  /**
   * Runs {@code op}, repeating it through connection losses for up to the connect timeout.
   * {@code what} names the operation in a failure's message; it is built only for a failure.
   */
  <T> T call(Supplier<String> what, Op<T> op) {
    return call(what, url.connectTimeout(), op);
  }

  /** Runs {@code op}, repeating it through connection losses within {@code patience}, or the caller's shorter bound. */
  <T> T call(Supplier<String> what, Duration patience, Op<T> op) {
    long limit = CallTimeout.boundNanos(patience.toNanos());
    long deadline = now() + limit;
    boolean interrupted = Thread.interrupted();
    Exception last;
    try {
      while (true) {
        checkOpen();
        long sent = now();
        Requests requests = null;
        try {
          requests = new Requests(zk(), deadline, ticker);
          T result = op.run(requests);
          if (requests.reachedLeader()) {
            lastContact.accumulateAndGet(sent, (a, b) -> a - b >= 0 ? a : b);
          }
          return result;
        } catch (KeeperException e) {
          if (!retriable(e)) {
            throw failure(what.get(), e);
          }
          last = e;
        } catch (InterruptedException e) {
          interrupted = true;
          last = e;
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) { // from Curator's getZooKeeper()
          last = e;
        } finally {
          interrupted |= requests != null && requests.interrupted();
        }
        if (now() - deadline >= 0) {
          throw new BackendUnavailableException(String.format("%s failed to %s within %d ms: %s",
              url.redacted(), what.get(), TimeUnit.NANOSECONDS.toMillis(limit), last), last);
        }
        // In slices, so that a call whose session ends meanwhile runs again and sees it.
        interrupted |= awaitConnected(Math.min(deadline, now() + SLICE_NANOS));
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static boolean retriable(KeeperException e) {
    return switch (e.code()) {
      case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> true;
      default -> false;
    };
  }

  /** Waits until connected or the deadline; true if interrupted meanwhile (the flag is cleared). */
  private boolean awaitConnected(long deadline) {
    boolean interrupted = false;
    while (true) {
      long left = deadline - now();
      if (left <= 0) {
        return interrupted;
      }
      try {
        if (curator.blockUntilConnected((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)),
            TimeUnit.MILLISECONDS)) {
          // Connected, yet the call failed: a short pause so a new session can settle.
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }

  ZooKeeper zk() throws Exception {
    return curator.getZookeeperClient().getZooKeeper();
  }

  /** The current session's id, 0 while no session is established. No I/O. */
  long sessionId() {
    try {
      return zk().getSessionId();
    } catch (Exception e) {
      return 0;
    }
  }

  /** True while connected to a server; no I/O. */
  boolean connected() {
    return !closed && curator.getZookeeperClient().isConnected();
  }

  /** The session timeout the server granted (or the one asked for, before the first connect). */
  Duration sessionTimeout() {
    int negotiated = curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
    return negotiated > 0 ? Duration.ofMillis(negotiated) : url.sessionTimeout();
  }

  /**
   * How long the session surely lives, counted from the send time of a call that went through the
   * leader (a sync or a write) and was answered: two fifths of the session timeout T. Why less
   * than T: the leader alone expires sessions, and a follower tells it of a session's requests
   * only in its reply to the leader's next ping (every tickTime/2); the requests it forwards do not
   * count there. A follower cut off right after it answered may never pass the last ones on. What
   * the leader has seen by the time it answers a forwarded request sent at {@code s}:
   * <ul>
   *   <li>every ping reply the follower sent before it forwarded the request, as both go over its
   *       one connection to the leader, in order, read by one thread. The last of them left no more
   *       than one ping interval before {@code s}: tickTime/2, at most T/4, as T is at least two
   *       ticks (the server's default minSessionTimeout);</li>
   *   <li>so every request of the session that came to the follower before that reply, and one
   *       came within T/3 before it: the ZooKeeper client pings after T/3 without sending (half its
   *       read timeout, 2T/3). The leader then gave the session a whole T.</li>
   * </ul>
   * So the leader keeps the session at least T - T/4 - T/3 = 5T/12 after {@code s}; a further
   * T/60 is kept back for the time requests and pings spend between the machines. Not "from the
   * renewal before the last one": the engine renews every third of this lease, so with 3T/4 that
   * renewal could come a ping interval (T/4) or less before the last one and be unreported too,
   * and rounds are not evenly spaced (a reconnect's re-check, a slow round). Reads alone prove
   * nothing: a follower cut off from the leader serves them, and pings, for syncLimit ticks.
   */
  Duration lease() {
    return sessionTimeout().multipliedBy(2).dividedBy(5);
  }

  /** The latest send time (on {@link #now}) of an answered call that went through the leader. */
  long lastContact() {
    return lastContact.get();
  }

  BackendUnavailableException failure(String what, Throwable cause) {
    return new BackendUnavailableException(String.format("%s failed to %s: %s", url.redacted(), what,
        cause), cause);
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("backend " + url.redacted() + " is closed");
    }
  }

  boolean isClosed() {
    return closed;
  }

  /** Drops the connection as a dying process would: no close request, so the server keeps the
   * session, and its nodes, until the session times out. */
  void abandon() {
    if (closed) {
      return;
    }
    try {
      ZooKeeper zk = zk();
      // Curator must not see the injected expiry: it would close the handle, and closing a live
      // handle ends the session at the server, which is what a crash does not do.
      zk.register(event -> { });
      zk.getTestable().injectSessionExpiration();
    } catch (Exception e) {
      // Already gone: closing below is all that is left.
    }
    close();
  }

  /**
   * Closes on a thread of its own. Why: a ZooKeeper client that is between two connection
   * attempts notices a close only when it wakes, up to a second later, and a failed open must not
   * hold its caller past the connect timeout for that.
   */
  private void closeLater() {
    daemon(this::close, "dlock-zookeeper-close-").start();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    reports.shutdown();
    curator.close();
  }
}
