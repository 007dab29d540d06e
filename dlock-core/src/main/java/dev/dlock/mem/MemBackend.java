package dev.dlock.mem;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import dev.dlock.spi.HandsOff;
import dev.dlock.spi.LockBackend;
import dev.dlock.spi.LockInfo;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One client's connection to a {@link MemServer}. Each operation is one atomic compute on the
 * name's entry in the table of its kind; notifications are sent after the compute, never inside it.
 */
final class MemBackend implements LockBackend, HandsOff {
  /** A retry hint when only the queue, not a lease, holds a waiter back. */
  private static final Duration QUEUED = Duration.ofMillis(100);

  private final MemServer server;
  private volatile @Nullable BackendContext context;
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
  public Set<LockKind> kinds() {
    return EnumSet.allOf(LockKind.class);
  }

  @Override
  public Attempt tryAcquire(LockRequest r) {
    checkOpen();
    long now = server.ticker.read();
    Attempt[] result = new Attempt[1];
    Set<String> wake = new HashSet<>();
    server.table(r.kind()).compute(r.name(), (k, e) -> {
      if (e == null) {
        e = new MemEntry();
      }
      e.prune(now, w -> isDead(w, now));
      if (r.kind() == LockKind.PERMIT) {
        if (e.permits != 0 && e.permits != r.permits()) {
          throw new IllegalArgumentException(String.format("semaphore '%s' has %d permits, not %d",
              r.name(), e.permits, r.permits()));
        }
        e.permits = r.permits();
      }
      if (e.grantable(r)) {
        long token = server.tokens.incrementAndGet();
        e.holders.put(r.owner(), new MemEntry.Holder(r.kind(), token, now + r.leaseTime().toNanos()));
        e.waiters.remove(r.owner());
        result[0] = Attempt.granted(token);
      } else {
        if (r.willWait()) {
          e.waiters.putIfAbsent(r.owner(), new MemEntry.Waiter(
              java.util.Objects.requireNonNull(context, "context").clientId(), r.kind(), now));
          e.waiters.computeIfPresent(r.owner(), (o, w) -> new MemEntry.Waiter(w.clientId(), w.kind(), now));
        }
        Map.Entry<String, MemEntry.Holder> h = e.firstHolder();
        result[0] = h == null
            ? Attempt.held(QUEUED, null)
            : Attempt.held(Duration.ofNanos(h.getValue().expiresAt - now), h.getKey());
      }
      return e.isEmpty() ? null : e;
    });
    notifyAll(r.name(), wake);
    return result[0];
  }

  @Override
  public Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    checkOpen();
    Set<Grant> gone = new HashSet<>();
    for (Grant g : grants) {
      long now = server.ticker.read();
      boolean[] extended = new boolean[1];
      server.table(g.kind()).computeIfPresent(g.name(), (k, e) -> {
        MemEntry.Holder h = live(e, g, now);
        if (h != null) {
          h.expiresAt = now + leaseTime.toNanos();
          extended[0] = true;
        }
        return e;
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
    Set<String> wake = new HashSet<>();
    server.table(g.kind()).computeIfPresent(g.name(), (k, e) -> {
      released[0] = live(e, g, now) != null;
      if (released[0]) {
        e.holders.remove(g.owner());
      }
      e.prune(now, w -> isDead(w, now));
      wake.addAll(e.clientsToWake());
      return e.isEmpty() ? null : e;
    });
    notifyAll(g.name(), wake);
    return released[0];
  }

  @Override
  public Attempt handOff(Grant g, String owner, Duration leaseTime) {
    checkOpen();
    long now = server.ticker.read();
    Attempt[] result = {Attempt.held(Duration.ZERO, null)};
    server.table(g.kind()).computeIfPresent(g.name(), (k, e) -> {
      if (live(e, g, now) != null) {
        e.holders.remove(g.owner());
        long token = server.tokens.incrementAndGet();
        e.holders.put(owner, new MemEntry.Holder(g.kind(), token, now + leaseTime.toNanos()));
        result[0] = Attempt.granted(token);
      }
      return e;
    });
    return result[0];
  }

  @Override
  public void cancel(String name, String owner) {
    long now = server.ticker.read();
    for (ConcurrentHashMap<String, MemEntry> table : server.tables()) {
      Set<String> wake = new HashSet<>();
      table.computeIfPresent(name, (k, e) -> {
        if (e.waiters.remove(owner) != null) {
          e.prune(now, w -> isDead(w, now));
          wake.addAll(e.clientsToWake()); // a writer that gave up may have held readers back
        }
        return e.isEmpty() ? null : e;
      });
      notifyAll(name, wake);
    }
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    checkOpen();
    return info(name);
  }

  @Override
  public List<LockInfo> inspectAll() {
    checkOpen();
    List<LockInfo> all = new ArrayList<>();
    for (String name : new TreeMap<>(server.entries).keySet()) {
      info(name).ifPresent(all::add);
    }
    return all;
  }

  /** The exclusive lock's holder, read under its compute so owner, token and expiry agree. */
  private Optional<LockInfo> info(String name) {
    LockInfo[] info = new LockInfo[1];
    server.entries.computeIfPresent(name, (k, e) -> {
      long now = server.ticker.read();
      Map.Entry<String, MemEntry.Holder> h = e.firstHolder();
      if (h != null && now - h.getValue().expiresAt < 0) {
        info[0] = new LockInfo(name, h.getKey(), h.getValue().token,
            Duration.ofNanos(h.getValue().expiresAt - now));
      }
      return e;
    });
    return Optional.ofNullable(info[0]);
  }

  private static MemEntry.@Nullable Holder live(MemEntry e, Grant g, long now) {
    MemEntry.Holder h = e.holders.get(g.owner());
    return h != null && h.token == g.token() && now - h.expiresAt < 0 ? h : null;
  }

  private boolean isDead(MemEntry.Waiter w, long now) {
    return !server.sessions.containsKey(w.clientId()) || now - w.lastSeen() > server.waiterTimeoutNanos;
  }

  private void notifyAll(String name, Set<String> clients) {
    for (String client : clients) {
      MemBackend b = server.sessions.get(client);
      BackendContext c = b == null ? null : b.context;
      if (c != null) { // null until the session has started
        c.released(name);
      }
    }
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
