package dev.dlock.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The peer {@code curator}: Curator's {@code InterProcessMutex} (curator-recipes), one mutex per
 * lock name, reused, as its documentation shows. The lab's lease is the session timeout, since the
 * session is what keeps a holder's node; the connection timeout is half of it.
 *
 * <p>Why {@link Held#lost()} follows the connection state: Curator's documentation tells lock
 * users to watch for {@code SUSPENDED} and {@code LOST} and to treat the lock as gone on either,
 * so the holder stops at the first one since its acquire began. {@code release()} deletes the node
 * and ignores one already gone, so it cannot say what it freed: after a {@code LOST} the session
 * and its node are gone and the release freed nothing ({@code ""}); otherwise it freed this
 * worker's node. Curator has no fencing token.
 */
final class CuratorScheme implements Scheme {
  private static final String ROOT = "/lab-curator/";

  private final CuratorFramework client;
  private final String process;
  private final Duration lease;
  private final Map<String, InterProcessMutex> mutexes = new HashMap<>();
  private final AtomicLong suspensions = new AtomicLong();
  private final AtomicLong losses = new AtomicLong();

  CuratorScheme(String url, String process, Duration lease) throws InterruptedException {
    PeerUrl.Zk zk = PeerUrl.zk(url);
    this.process = process;
    this.lease = lease;
    int session = Math.toIntExact(lease.toMillis());
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(zk.connect())
        .sessionTimeoutMs(session).connectionTimeoutMs(Math.max(1, session / 2))
        .retryPolicy(new ExponentialBackoffRetry(100, 3));
    if (zk.user() != null) {
      b.authorization("digest", (zk.user() + ":" + zk.password()).getBytes(StandardCharsets.UTF_8));
    }
    client = b.build();
    client.getConnectionStateListenable().addListener((c, state) -> {
      if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
        suspensions.incrementAndGet();
      }
      if (state == ConnectionState.LOST) {
        losses.incrementAndGet();
      }
    });
    client.start();
    if (!client.blockUntilConnected(5, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("no ZooKeeper session within 5 s at " + zk.connect());
    }
  }

  @Override
  public Held acquire(String lock, Duration lease, Duration wait) throws Exception {
    Schemes.checkLease("curator", this.lease, lease);
    InterProcessMutex mutex = mutexes.computeIfAbsent(lock, l -> new InterProcessMutex(client, ROOT + l));
    long suspended = suspensions.get();
    long lost = losses.get();
    if (!mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
      return null;
    }
    return new Held() {
      @Override
      public long token() {
        return -1;
      }

      @Override
      public boolean lost() {
        return suspensions.get() != suspended;
      }

      @Override
      public String release() throws Exception {
        try {
          mutex.release();
        } catch (IllegalMonitorStateException e) {
          return ""; // Curator no longer counts this thread as the owner
        }
        return losses.get() != lost ? "" : process;
      }
    };
  }

  @Override
  public boolean fenced() {
    return false;
  }

  @Override
  public void close() {
    client.close();
  }
}
