package dev.dlock.engine;

import static java.util.Objects.requireNonNull;

import dev.dlock.LockTimeoutException;
import dev.dlock.internal.CallTimeout;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import dev.dlock.spi.WaitsAtServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One acquire call, followed through: reentry by the holding thread costs nothing; otherwise the
 * thread passes the name's gate (one competitor per name and client; a try whose time runs out at
 * a busy gate asks once past it), or takes the grant a local releaser handed it while it queued
 * there, asks the backend, and on
 * "held" sleeps until a release notification, the backend's retry hint capped by maxPollInterval,
 * or its deadline. A wait that ends without a grant cancels its place at the backend, so nothing
 * is left behind for a thread that timed out or was interrupted.
 */
final class Acquisition {
  private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final EngineContext ctx;
  private final Renewer renewer;
  private final Spec spec;
  private final String name;
  private final Duration lease;
  private final long timeoutNanos;
  private final long start;
  private boolean waited;
  private boolean askedBackend;
  private @Nullable String holder;

  /** {@code timeoutNanos}: negative waits forever, zero does not wait. */
  Acquisition(EngineContext ctx, Renewer renewer, Spec spec, long timeoutNanos) {
    this.ctx = ctx;
    this.renewer = renewer;
    this.spec = spec;
    this.name = spec.name();
    this.lease = spec.lease();
    this.timeoutNanos = timeoutNanos;
    this.start = ctx.ticker.read();
  }

  /**
   * The hold, or null when the wait ran out, which listeners hear of. {@code interruptible} calls
   * throw at once if the thread is already interrupted, even with a zero wait, as
   * {@code ReentrantLock.tryLock(0, unit)} does.
   */
  @Nullable Hold run(boolean interruptible) throws InterruptedException {
    Hold h = attempt(interruptible);
    if (h == null) {
      ctx.events.timedOut(name, Duration.ofNanos(ctx.ticker.read() - start));
    }
    return h;
  }

  // Null means only "the deadline passed": interrupts, failures and a closed client all throw.
  @SuppressWarnings("ReferenceEquality") // NameState.GATE is a sentinel, compared by identity
  private @Nullable Hold attempt(boolean interruptible) throws InterruptedException {
    if (interruptible && Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
    }
    ctx.names.checkOpen(name);
    Hold h = reenter(ctx.names.existing(spec.key()));
    if (h != null) {
      return h;
    }
    refuseUpgrade();
    NameState st = ctx.names.enter(spec);
    boolean keepRef = false;
    try {
      h = reenter(st);
      if (h != null) {
        return h;
      }
      NameState.Handed pass = passGate(st);
      if (pass == null) {
        // The gate stayed busy for the whole wait, and the name may be free all the same (the
        // sibling at the gate may not have asked yet): ask once past the gate, as
        // ReentrantLock.tryLock barges, rather than refuse (Lincheck found the refusal).
        h = compete(st, false);
        keepRef = h != null;
        return h;
      }
      if (pass != NameState.GATE) {
        Hold from = pass.from();
        Attempt a = pass.attempt();
        h = from != null ? takeTurn(st, from) : install(st, pass.grant().owner(), requireNonNull(a), pass.sentAt());
        keepRef = true;
        return h;
      }
      try {
        ctx.names.checkOpen(name);
        h = compete(st, true);
        keepRef = h != null;
        return h;
      } finally {
        st.leaveGate();
      }
    } finally {
      if (!keepRef) {
        ctx.names.exit(st);
      }
    }
  }

  LockTimeoutException timeout() {
    return new LockTimeoutException(String.format(
        "timed out after %s waiting for lock '%s', held by %s (client %s, backend %s)",
        Durations.formatNanos(ctx.ticker.read() - start), name,
        holderForMessage(), ctx.clientId, ctx.backend.describe()));
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
    NameState st = ctx.names.existing(Spec.key(kind, name));
    return st == null ? null : st.heldBy(Thread.currentThread());
  }

  /** The gate ({@link NameState#GATE}), a grant handed on by a local releaser, or null: timed out. */
  private NameState.@Nullable Handed passGate(NameState st) throws InterruptedException {
    NameState.Handed pass = st.enterGate(spec, 0, ctx.ticker, null);
    if (pass != null || timeoutNanos == 0) {
      return pass;
    }
    return st.enterGate(spec, remaining(), ctx.ticker, this::markWaited);
  }

  /** {@code head}: the thread passed the gate, and a release notification must wake it. */
  private @Nullable Hold compete(NameState st, boolean head) throws InterruptedException {
    String owner = ctx.names.newOwner();
    boolean queued = false;
    boolean granted = false;
    boolean exclusive = spec.kind() == LockKind.EXCLUSIVE;
    WaitsAtServer server = exclusive && ctx.backend instanceof WaitsAtServer w ? w : null;
    boolean serverWaits = server != null;
    Hold writeHold = spec.kind() == LockKind.READ ? heldByThisThread(LockKind.WRITE) : null;
    String writer = writeHold == null ? null : writeHold.grant.owner();
    boolean first = true;
    if (head) {
      st.competing(true);
    }
    try {
      while (true) {
        long seq = st.releaseSeq();
        long sentAt = ctx.ticker.read();
        final long left = remaining();
        boolean willWait = left != 0;
        // Counted as queued before the call: a call that fails may have queued us all the same.
        queued |= willWait;
        // A server that queues waiters is asked to wait only once a plain try found the lock held.
        LockRequest request = new LockRequest(name, spec.kind(), spec.permits(), owner, lease,
            willWait && !serverWaits, writer);
        Attempt a = willWait && server != null && !first
            ? waitAtServer(server, owner, left)
            : ctx.calls.call(name, "acquire", () -> CallTimeout.within(left, () -> ctx.backend.tryAcquire(request)));
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
          ctx.names.checkOpen(name);
          continue;
        }
        long pause = Math.max(MIN_PAUSE_NANOS,
            Math.min(Durations.saturatedNanos(a.retryAfter()), ctx.maxPollNanos));
        // The hint counts from the attempt, as the server's answer does: a thread that comes to
        // sleep late sleeps only what is left of it. Counted from its sleep instead, it overslept,
        // and on a virtual clock that stood still meanwhile it slept for good.
        long until = sentAt + pause;
        if (timeoutNanos >= 0 && until - start > timeoutNanos) {
          until = start + timeoutNanos;
        }
        st.awaitRelease(seq, until, ctx.ticker);
        ctx.names.checkOpen(name);
      }
    } finally {
      if (head) {
        st.competing(false);
      }
      if (queued && !granted) {
        ctx.cancelQuietly(name, owner);
      }
    }
  }

  /** One slice of a wait the server does itself, no longer than the poll interval. */
  private Attempt waitAtServer(WaitsAtServer server, String owner, long left) throws InterruptedException {
    Duration slice = Duration.ofNanos(left < 0 ? ctx.maxPollNanos : Math.min(left, ctx.maxPollNanos));
    return ctx.calls.callInterruptibly(name, "acquire",
        () -> CallTimeout.within(slice.toNanos(), () -> server.acquireWaiting(name, owner, lease, slice)));
  }

  private Hold install(NameState st, String owner, Attempt a, long sentAt) {
    long leaseNanos = Durations.saturatedNanos(lease);
    long validity = Durations.saturatedNanos(a.validity().orElse(lease));
    Hold h = new Hold(ctx, renewer, st, new Grant(name, owner, a.token(), spec.kind()), spec, sentAt,
        renewer.deadline(sentAt, validity), Renewer.end(sentAt, leaseNanos));
    st.install(h);
    track(h);
    ctx.events.acquired(name, a.token(), Duration.ofNanos(ctx.ticker.read() - start));
    return h;
  }

  /**
   * Takes the next turn on {@code from}'s backend grant, handed within the client: the next token,
   * no longer valid than {@code from}, renewed on {@code from}'s schedule rather than at once.
   */
  private Hold takeTurn(NameState st, Hold from) {
    Hold h = new Hold(ctx, renewer, st, from.grant, from.handOffs + 1, spec, ctx.ticker.read(), from.validUntil,
        from.fixedEnd);
    from.passTo(h);
    st.install(h);
    if (ctx.names.isClosed()) {
      track(h); // releases the grant and throws
    }
    renewer.addTurn(h);
    ctx.events.acquired(name, h.token, Duration.ofNanos(ctx.ticker.read() - start));
    return h;
  }

  /** Starts renewal and the deadline of a new hold; undoes the grant if the client closed meanwhile. */
  private void track(Hold h) {
    if (ctx.names.isClosed()) {
      h.state.remove(h);
      h.endAll();
      ctx.cleanup.releaseNow(h.grant);
      throw ctx.names.closedException(h.name());
    }
    renewer.add(h);
  }

  /** Nanos left: -1 for no deadline, 0 when none are left. */
  private long remaining() {
    if (timeoutNanos < 0) {
      return -1;
    }
    return Math.max(0, timeoutNanos - (ctx.ticker.read() - start));
  }

  private void markWaited() {
    if (!waited) {
      waited = true;
      ctx.events.waited(name);
    }
  }
}
