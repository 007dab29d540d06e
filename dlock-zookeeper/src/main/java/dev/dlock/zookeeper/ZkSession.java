package dev.dlock.zookeeper;

import dev.dlock.BackendUnavailableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * One Curator-managed ZooKeeper session and the rule for retrying calls on it. Why raw ZooKeeper
 * calls on Curator's handle rather than Curator's builders: Curator repeats a create after a
 * connection loss blindly, which can leak a sequential node; here Curator only keeps the
 * connection (reconnects, new sessions, state events) and every call is an {@link Op} written to
 * be safe to repeat (the create looks for its node before creating again). Calls ignore interrupts
 * while they run (the flag is kept), so a release or cancel on an interrupted thread still happens,
 * and they give up after the connection timeout with a {@link BackendUnavailableException}.
 */
final class ZkSession implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  /** One ZooKeeper call, repeated as a whole after a connection loss. */
  interface Op<T> {
    T run(ZooKeeper zk) throws KeeperException, InterruptedException;
  }

  final ZkUrl url;
  final List<ACL> acl;
  private final CuratorFramework curator;
  private final AtomicLong lastContact = new AtomicLong(System.nanoTime());
  private volatile boolean closed;

  private ZkSession(ZkUrl url, CuratorFramework curator) {
    this.url = url;
    this.curator = curator;
    this.acl = url.hasCredentials() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
  }

  /** Connects, or throws {@link BackendUnavailableException} after the connection timeout. */
  static ZkSession open(ZkUrl url, ZookeeperFactory factory) {
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
        .connectString(url.hosts())
        .sessionTimeoutMs((int) url.sessionTimeout().toMillis())
        .connectionTimeoutMs((int) url.connectionTimeout().toMillis())
        .retryPolicy(new ExponentialBackoffRetry(100, 3))
        .ensembleTracker(false)
        .threadFactory(r -> {
          Thread t = new Thread(r, "dlock-zookeeper-" + THREADS.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
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
      connected = curator.blockUntilConnected((int) url.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      curator.close();
      throw new BackendUnavailableException(String.format(
          "interrupted while connecting to %s", url.redacted()), e);
    } catch (RuntimeException e) {
      curator.close();
      throw new BackendUnavailableException(String.format("cannot connect to %s: %s", url.redacted(), e), e);
    }
    if (!connected) {
      curator.close();
      throw new BackendUnavailableException(String.format(
          "cannot connect to %s: no server answered within the connection timeout of %d ms",
          url.redacted(), url.connectionTimeout().toMillis()));
    }
    return session;
  }

  void addListener(ConnectionStateListener listener) {
    curator.getConnectionStateListenable().addListener(listener);
  }

  /** Runs {@code op}, repeating it through connection losses for up to the connection timeout. */
  <T> T call(String what, Op<T> op) {
    return call(what, url.connectionTimeout(), op);
  }

  <T> T call(String what, Duration patience, Op<T> op) {
    long deadline = System.nanoTime() + patience.toNanos();
    boolean interrupted = Thread.interrupted();
    Exception last;
    try {
      while (true) {
        checkOpen();
        long sent = System.nanoTime();
        try {
          T result = op.run(zk());
          lastContact.accumulateAndGet(sent, Math::max);
          return result;
        } catch (KeeperException e) {
          if (!retriable(e)) {
            throw failure(what, e);
          }
          last = e;
        } catch (InterruptedException e) {
          interrupted = true;
          last = e;
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) { // from Curator's getZooKeeper()
          last = e;
        }
        if (System.nanoTime() - deadline >= 0) {
          throw failure(what, last);
        }
        // In slices, so that a call whose session ends meanwhile runs again and sees it.
        interrupted |= awaitConnected(Math.min(deadline, System.nanoTime() + SLICE_NANOS));
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
      long left = deadline - System.nanoTime();
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

  /** The latest send time (System.nanoTime) of a call that got its answer. */
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

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    curator.close();
  }
}
