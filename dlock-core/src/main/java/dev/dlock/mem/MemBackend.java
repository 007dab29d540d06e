package dev.dlock.mem;

import dev.dlock.LockInfo;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * One client's connection to a {@link MemServer}. Each operation is one atomic compute on the
 * name's entry; the release notification is sent after the compute, never inside it.
 */
final class MemBackend implements LockBackend {
  private final MemServer server;
  private volatile BackendContext context;
  private volatile boolean closed;

  MemBackend(MemServer server) {
    this.server = server;
  }

  @Override
  public void start(BackendContext context) {
    this.context = context;
    server.sessions.put(context.clientId(), this);
  }

  @Override
  public Attempt tryAcquire(String name, String owner, Duration leaseTime, boolean willWait) {
    checkOpen();
    long now = server.ticker.read();
    Attempt[] result = new Attempt[1];
    server.entries.compute(name, (k, e) -> {
      if (e == null) {
        e = new MemEntry();
      }
      if (!e.heldAt(now)) {
        e.owner = owner;
        e.token = server.tokens.incrementAndGet();
        e.expiresAt = now + leaseTime.toNanos();
        e.waiters.remove(owner);
        result[0] = Attempt.granted(e.token);
      } else {
        if (willWait) {
          e.waiters.put(owner, new MemEntry.Waiter(context.clientId(), now));
        }
        result[0] = Attempt.held(Duration.ofNanos(e.expiresAt - now), e.owner);
      }
      return e.isEmpty() ? null : e;
    });
    return result[0];
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    checkOpen();
    Set<Grant> gone = new HashSet<>();
    for (Grant g : grants) {
      long now = server.ticker.read();
      boolean[] extended = new boolean[1];
      server.entries.computeIfPresent(g.name(), (k, cur) -> {
        if (owns(cur, g, now)) {
          cur.expiresAt = now + leaseTime.toNanos();
          extended[0] = true;
        }
        return cur;
      });
      if (!extended[0]) {
        gone.add(g); // released, taken over, or run out on the server's clock
      }
    }
    return gone;
  }

  @Override
  public boolean release(Grant g) {
    checkOpen();
    long now = server.ticker.read();
    boolean[] released = new boolean[1];
    String[] notify = new String[1];
    server.entries.computeIfPresent(g.name(), (k, e) -> {
      if (owns(e, g, now)) {
        released[0] = true;
        e.owner = null;
        notify[0] = firstLiveWaiter(e, now);
      } else if (!e.heldAt(now)) {
        // An expired grant is free already; forgetting it lets the entry go once nobody waits.
        e.owner = null;
      }
      return e.isEmpty() ? null : e;
    });
    if (notify[0] != null) {
      MemBackend waiter = server.sessions.get(notify[0]);
      if (waiter != null) {
        waiter.context.released(g.name());
      }
    }
    return released[0];
  }

  @Override
  public void cancel(String name, String owner) {
    server.entries.computeIfPresent(name, (k, e) -> {
      e.waiters.remove(owner);
      return e.isEmpty() ? null : e;
    });
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    checkOpen();
    return Optional.ofNullable(server.entries.get(name)).flatMap(e -> info(name, e));
  }

  @Override
  public List<LockInfo> inspectAll() {
    checkOpen();
    List<LockInfo> all = new ArrayList<>();
    new TreeMap<>(server.entries).forEach((name, e) -> info(name, e).ifPresent(all::add));
    return all;
  }

  /** A snapshot of one entry, read under its compute so owner, token and expiry agree. */
  private Optional<LockInfo> info(String name, MemEntry entry) {
    LockInfo[] info = new LockInfo[1];
    server.entries.computeIfPresent(name, (k, e) -> {
      long now = server.ticker.read();
      if (e == entry && e.heldAt(now)) {
        info[0] = new LockInfo(name, e.owner, e.token, Duration.ofNanos(e.expiresAt - now));
      }
      return e;
    });
    return Optional.ofNullable(info[0]);
  }

  private static boolean owns(MemEntry e, Grant g, long now) {
    return e.heldAt(now) && g.owner().equals(e.owner) && e.token == g.token();
  }

  /** Drops waiters of closed clients and waiters that stopped asking; returns the first live one. */
  private String firstLiveWaiter(MemEntry e, long now) {
    for (Iterator<Map.Entry<String, MemEntry.Waiter>> it = e.waiters.entrySet().iterator(); it.hasNext(); ) {
      MemEntry.Waiter w = it.next().getValue();
      if (!server.sessions.containsKey(w.clientId()) || now - w.lastSeen() > server.waiterTimeoutNanos) {
        it.remove();
      } else {
        return w.clientId();
      }
    }
    return null;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("backend " + describe() + " is closed");
    }
  }

  @Override
  public String describe() {
    return server.describe();
  }

  @Override
  public void close() {
    closed = true;
    BackendContext c = context;
    if (c != null) {
      server.sessions.remove(c.clientId(), this);
    }
  }
}
