package dev.dlock;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.CallTimeout;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One acquire call, followed through: reentry by the holding thread costs nothing; otherwise the
 * thread passes the name's gate (one competitor per name and client), or takes the grant a local
 * releaser handed it while it queued there, asks the backend, and on
 * "held" sleeps until a release notification, the backend's retry hint capped by maxPollInterval,
 * or its deadline. A wait that ends without a grant cancels its place at the backend, so nothing
 * is left behind for a thread that timed out or was interrupted.
 */
final class Acquisition {
  private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Engine engine;
  private final Spec spec;
  private final String name;
  private final Duration lease;
  private final long timeoutNanos;
  private final long start;
  private boolean waited;
  private boolean askedBackend;
  private @Nullable String holder;

  /** {@code timeoutNanos}: negative waits forever, zero does not wait. */
  Acquisition(Engine engine, Spec spec, long timeoutNanos) {
    this.engine = engine;
    this.spec = spec;
    this.name = spec.name();
    this.lease = spec.lease();
    this.timeoutNanos = timeoutNanos;
    this.start = engine.ticker.read();
  }

  /**
   * The hold, or null when the wait ran out, which listeners hear of. {@code interruptible} calls
   * throw at once if the thread is already interrupted, even with a zero wait, as
   * {@code ReentrantLock.tryLock(0, unit)} does.
   */
  @Nullable Hold run(boolean interruptible) throws InterruptedException {
    Hold h = attempt(interruptible);
    if (h == null) {
      engine.events.timedOut(name, Duration.ofNanos(engine.ticker.read() - start));
    }
    return h;
  }

  // Null means only "the deadline passed": interrupts, failures and a closed client all throw.
  @SuppressWarnings("ReferenceEquality") // NameState.GATE is a sentinel, compared by identity
  private @Nullable Hold attempt(boolean interruptible) throws InterruptedException {
    if (interruptible && Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
    }
    engine.checkOpen(name);
    Hold h = reenter(engine.existing(spec.key()));
    if (h != null) {
      return h;
    }
    refuseUpgrade();
    NameState st = engine.enter(spec);
    boolean keepRef = false;
    try {
      h = reenter(st);
      if (h != null) {
        return h;
      }
      NameState.Handed pass = passGate(st);
      if (pass == null) {
        return null;
      }
      if (pass != NameState.GATE) {
        h = install(st, pass.grant().owner(), pass.attempt(), pass.sentAt());
        keepRef = true;
        return h;
      }
      try {
        engine.checkOpen(name);
        h = compete(st);
        keepRef = h != null;
        return h;
      } finally {
        st.leaveGate();
      }
    } finally {
      if (!keepRef) {
        engine.exit(st);
      }
    }
  }

  LockTimeoutException timeout() {
    return new LockTimeoutException(String.format(
        "timed out after %s waiting for lock '%s', held by %s (client %s, backend %s)",
        Durations.formatNanos(engine.ticker.read() - start), name,
        holderForMessage(), engine.id(), engine.backend.describe()));
  }

  private String holderForMessage() {
    if (holder != null) {
      return "'" + holder + "'";
    }
    return askedBackend ? "another owner" : "another thread of this client, ahead in its local queue";
  }

  private @Nullable Hold reenter(@Nullable NameState st) {
    if (st == null) {
      return null;
    }
    Hold h = st.heldBy(Thread.currentThread());
    return h != null && h.reenter() ? h : null;
  }

  /** A reader asking for the write lock would wait for itself: refuse at once instead. */
  private void refuseUpgrade() {
    if (spec.kind() == LockKind.WRITE && heldByThisThread(LockKind.READ) != null) {
      throw new IllegalStateException(String.format("thread '%s' holds the read lock '%s' and asks for"
          + " its write lock: upgrading would deadlock; release the read lock first",
          Thread.currentThread().getName(), name));
    }
  }

  private @Nullable Hold heldByThisThread(LockKind kind) {
    NameState st = engine.existing(Spec.key(kind, name));
    return st == null ? null : st.heldBy(Thread.currentThread());
  }

  /** The gate ({@link NameState#GATE}), a grant handed on by a local releaser, or null: timed out. */
  private NameState.@Nullable Handed passGate(NameState st) throws InterruptedException {
    NameState.Handed pass = st.enterGate(spec, 0, null);
    if (pass != null || timeoutNanos == 0) {
      return pass;
    }
    return st.enterGate(spec, remaining(), this::markWaited);
  }

  private @Nullable Hold compete(NameState st) throws InterruptedException {
    String owner = engine.newOwner();
    boolean queued = false;
    boolean granted = false;
    boolean exclusive = spec.kind() == LockKind.EXCLUSIVE;
    boolean serverWaits = exclusive && engine.backend.waitsAtServer();
    Hold writeHold = spec.kind() == LockKind.READ ? heldByThisThread(LockKind.WRITE) : null;
    String writer = writeHold == null ? null : writeHold.grant.owner();
    boolean first = true;
    st.competing(true);
    try {
      while (true) {
        long seq = st.releaseSeq();
        long sentAt = engine.ticker.read();
        final long left = remaining();
        boolean willWait = left != 0;
        // Counted as queued before the call: a call that fails may have queued us all the same.
        queued |= willWait;
        // A server that queues waiters is asked to wait only once a plain try found the lock held.
        Attempt a = willWait && serverWaits && !first
            ? waitAtServer(owner, left)
            : engine.call(name, "acquire", () -> CallTimeout.within(left, () -> exclusive
                ? engine.backend.tryAcquire(name, owner, lease, willWait && !serverWaits)
                : engine.backend.tryAcquire(new LockRequest(name, spec.kind(), spec.permits(), owner,
                    lease, willWait, writer))));
        first = false;
        if (a.isGranted()) {
          granted = true;
          st.resetStreak();
          return install(st, owner, a, sentAt);
        }
        askedBackend = true;
        holder = a.holder().orElse(holder);
        long stillLeft = remaining();
        if (stillLeft == 0) {
          return null;
        }
        markWaited();
        if (serverWaits) {
          engine.checkOpen(name);
          continue;
        }
        long pause = Math.max(MIN_PAUSE_NANOS,
            Math.min(Engine.saturatedNanos(a.retryAfter()), engine.maxPollNanos));
        st.awaitRelease(seq, stillLeft < 0 ? pause : Math.min(pause, stillLeft));
        engine.checkOpen(name);
      }
    } finally {
      st.competing(false);
      if (queued && !granted) {
        engine.cancelQuietly(name, owner);
      }
    }
  }

  /** One slice of a wait the server does itself, no longer than the poll interval. */
  private Attempt waitAtServer(String owner, long left) throws InterruptedException {
    Duration slice = Duration.ofNanos(left < 0 ? engine.maxPollNanos : Math.min(left, engine.maxPollNanos));
    try {
      return CallTimeout.within(slice.toNanos(), () -> engine.backend.acquireWaiting(name, owner, lease, slice));
    } catch (LockException | InterruptedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new LockException(String.format("backend %s failed to acquire lock '%s' for client %s: %s",
          engine.backend.describe(), name, engine.id(), e), e);
    }
  }

  private Hold install(NameState st, String owner, Attempt a, long sentAt) {
    long leaseNanos = Engine.saturatedNanos(lease);
    long validity = Engine.saturatedNanos(a.validity().orElse(lease));
    Hold h = new Hold(engine, st, new Grant(name, owner, a.token(), spec.kind()), spec, sentAt,
        engine.deadline(sentAt, validity), Renewer.end(sentAt, leaseNanos));
    st.install(h);
    engine.track(h);
    engine.events.acquired(name, a.token(), Duration.ofNanos(engine.ticker.read() - start));
    return h;
  }

  /** Nanos left: -1 for no deadline, 0 when none are left. */
  private long remaining() {
    if (timeoutNanos < 0) {
      return -1;
    }
    return Math.max(0, timeoutNanos - (engine.ticker.read() - start));
  }

  private void markWaited() {
    if (!waited) {
      waited = true;
      engine.events.waited(name);
    }
  }
}
