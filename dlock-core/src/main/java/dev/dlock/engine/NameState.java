package dev.dlock.engine;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One client's state for one lock name. The gate lets one local thread at a time compete at the
 * backend (the "head"); the others queue on it in FIFO order. The gate is handed on as soon as the
 * head is granted, not when it releases, so the next local waiter queues at the backend like any
 * remote one, and a release wakes at most one waiter: whichever the backend sends its notification
 * to. The head sleeps on a release sequence number, so a notification that arrives between its
 * attempt and its sleep is not lost. A releasing thread may instead pass its exclusive grant to a
 * thread queued at the gate ({@link Handed}): up to {@value #MAX_STREAK} times in a row, after
 * which it releases at the backend, so other clients' waiters get their turn. Lives in the
 * engine's map while referenced by a waiter or a hold ({@code refs}, changed only inside the map's
 * compute).
 *
 * <p>Waits park the thread, and a waker unparks it after changing the state under the lock, so a
 * wake between the waiter's last look and its park is kept as the park's permit. A timed wait
 * ends by the engine's ticker, the clock of record for every deadline, rather than by a
 * condition's own countdown on the system clock: tests then wait in the ticker's time, and the
 * model checker, which freezes the system clock and ends a timed park at once, sees a wait run out
 * instead of spinning forever.
 */
final class NameState {
  final Object key;
  final String name;
  final LockKind kind;
  /**
   * Hand-offs in a row before a release goes to the backend, where other clients queue: as many as
   * the spare tokens a backend leaves after a grant (15 on Redis, JDBC and ZooKeeper), so that one
   * server round trip serves sixteen turns. Fewer would cost a client's threads throughput without
   * shortening another client's wait by more than a few local holds.
   */
  static final int MAX_STREAK = 15;

  /** What {@link #enterGate} returns when the thread entered the gate, rather than a handed grant. */
  @SuppressWarnings("NullAway") // a sentinel compared by identity; its fields are never read
  static final Handed GATE = new Handed(null, null, null, 0, null);

  /**
   * A grant a releasing thread passed on, for a thread queued at the gate with an equal spec.
   * {@code sentAt}: when the hand-off was sent, on the engine's ticker; validity counts from there.
   * Either {@code attempt} is the backend's new grant, or {@code from} is the releaser's turn, whose
   * backend grant the taker keeps (a hand-off within the client, with no backend call).
   */
  record Handed(Spec spec, Grant grant, @Nullable Attempt attempt, long sentAt, @Nullable Hold from) {}

  /** A thread queued at the gate; compared by identity. */
  private static final class Waiter {
    final Spec spec;
    final Thread thread = Thread.currentThread();

    Waiter(Spec spec) {
      this.spec = spec;
    }
  }

  int refs;

  // Usually one hold. More while a lost hold is still unreleased and a newer grant exists, or for
  // the kinds held by many at once: readers on several threads, permits.
  private final List<Hold> holds = new ArrayList<>(1);

  private final ReentrantLock mu = new ReentrantLock();
  /** The head, while it sleeps until a release; only the thread past the gate waits there. */
  private @Nullable Thread releaseWaiter;
  // Small: uncontended, a state is made and dropped with each acquire.
  private final ArrayDeque<Waiter> gateQueue = new ArrayDeque<>(2);
  private long releaseSeq;
  private boolean headWaiting;
  private boolean gateHeld;
  private boolean handing;
  private @Nullable Handed handed;
  private int streak;
  private boolean closed;
  private int wakes;

  NameState(Object key, String name, LockKind kind) {
    this.key = key;
    this.name = name;
    this.kind = kind;
  }

  synchronized void install(Hold h) {
    holds.removeIf(Hold::isEnded);
    holds.add(h);
  }

  synchronized void remove(Hold h) {
    holds.remove(h);
  }

  /** The hold the thread acquired and has not ended, if any; never one of a permit. */
  synchronized @Nullable Hold heldBy(Thread thread) {
    if (kind == LockKind.PERMIT) {
      return null;
    }
    for (int i = holds.size() - 1; i >= 0; i--) {
      Hold h = holds.get(i);
      if (h.thread == thread) {
        return h;
      }
    }
    return null;
  }

  synchronized List<Hold> holds() {
    return new ArrayList<>(holds);
  }

  /**
   * Enters the gate, or takes a grant handed to a waiter of {@code spec}, waiting up to
   * {@code nanos} (forever if negative; not at all if zero). Returns {@link #GATE} once entered,
   * then the caller must {@link #leaveGate}; the handed grant; or null when the time ran out. An
   * interrupt throws, unless a grant was handed meanwhile: that grant is taken, with the interrupt
   * flag set again, rather than left behind. After close it returns {@link #GATE} at once.
   * {@code onQueued}, if given, runs once the thread is queued, outside this state's lock.
   */
  @Nullable Handed enterGate(Spec spec, long nanos, Ticker ticker, @Nullable Runnable onQueued)
      throws InterruptedException {
    long end = ticker.read() + nanos;
    mu.lock();
    try {
      if (closed || (!gateHeld && gateQueue.isEmpty())) {
        gateHeld = true;
        return GATE;
      }
      if (nanos == 0) {
        return null;
      }
      Waiter me = new Waiter(spec);
      gateQueue.add(me);
      boolean interrupted = false;
      try {
        if (onQueued != null) {
          mu.unlock();
          try {
            onQueued.run();
          } finally {
            mu.lock();
          }
        }
        while (true) {
          if (handed != null && handed.spec().equals(spec)) {
            Handed h = handed;
            handed = null;
            if (interrupted) {
              Thread.currentThread().interrupt();
            }
            return h;
          }
          if (interrupted) {
            throw new InterruptedException("interrupted while waiting for lock '" + name + "'");
          }
          if (closed || (!gateHeld && gateQueue.peek() == me)) {
            gateHeld = true;
            return GATE;
          }
          long left = -1; // forever
          if (nanos > 0) {
            left = end - ticker.read();
            if (left <= 0) {
              return null;
            }
          }
          park(left);
          // One more look before an interrupt throws: a grant handed meanwhile must not be left behind.
          interrupted = Thread.interrupted();
        }
      } finally {
        gateQueue.remove(me);
        wakeGate(); // the next in line may be first now
      }
    } finally {
      mu.unlock();
    }
  }

  void leaveGate() {
    mu.lock();
    try {
      gateHeld = false;
      wakeGate();
    } finally {
      mu.unlock();
    }
  }

  /**
   * A releasing thread asks to hand its grant on: true if a thread with an equal spec waits at the
   * gate and fewer than {@code maxStreak} hand-offs were made in a row; it must then call
   * {@link #handOver} or {@link #cancelHandOff}.
   */
  boolean reserveHandOff(Spec spec, int maxStreak) {
    mu.lock();
    try {
      if (closed || handing || handed != null || streak >= maxStreak || !awaited(spec)) {
        return false;
      }
      handing = true;
      return true;
    } finally {
      mu.unlock();
    }
  }

  /**
   * Leaves the new grant for a waiter of its spec. Returns it back if every such waiter left
   * meanwhile, or the client closed: the caller must then release it.
   */
  @Nullable Handed handOver(Handed h) {
    mu.lock();
    try {
      handing = false;
      if (closed || !awaited(h.spec())) {
        return h;
      }
      handed = h;
      streak++;
      wakeGate();
      return null;
    } finally {
      mu.unlock();
    }
  }

  void cancelHandOff() {
    mu.lock();
    try {
      handing = false;
    } finally {
      mu.unlock();
    }
  }

  /** A grant came from the backend, or the lock went back to it: the streak starts again. */
  void resetStreak() {
    mu.lock();
    try {
      streak = 0;
    } finally {
      mu.unlock();
    }
  }

  private boolean awaited(Spec spec) {
    for (Waiter w : gateQueue) {
      if (w.spec.equals(spec)) {
        return true;
      }
    }
    return false;
  }

  /** Marks whether a head of this client is competing at the backend, so a release wakes it. */
  void competing(boolean competing) {
    mu.lock();
    try {
      headWaiting = competing;
    } finally {
      mu.unlock();
    }
  }

  /** The release sequence to read before an attempt and wait on after it. */
  long releaseSeq() {
    mu.lock();
    try {
      return releaseSeq;
    } finally {
      mu.unlock();
    }
  }

  /**
   * Sleeps until a release after {@code seq}, until the ticker reads {@code end}, or until close.
   * True if a release came.
   */
  boolean awaitRelease(long seq, long end, Ticker ticker) throws InterruptedException {
    mu.lock();
    try {
      releaseWaiter = Thread.currentThread();
      while (releaseSeq == seq && !closed) {
        long left = end - ticker.read();
        if (left <= 0) {
          return false;
        }
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while waiting for lock '" + name + "'");
        }
        park(left);
      }
      return releaseSeq != seq;
    } finally {
      releaseWaiter = null;
      mu.unlock();
    }
  }

  /** Parks for {@code nanos}, or until woken if negative, with this state's lock let go meanwhile. */
  private void park(long nanos) {
    mu.unlock();
    try {
      if (nanos < 0) {
        LockSupport.park(this);
      } else {
        LockSupport.parkNanos(this, nanos);
      }
    } finally {
      mu.lock();
    }
  }

  /**
   * Wakes the waiters the gate's state now lets through, and no other: the first in line if the
   * gate is free, and the first waiter of the handed grant's spec if a grant is handed. Waking every
   * waiter instead cost each hand-off a wake-up of all the client's threads, most of which parked
   * again. A waiter that leaves the queue calls this too, so a wake it did not use goes on.
   */
  private void wakeGate() {
    Waiter first = gateQueue.peek();
    if (first != null && !gateHeld) {
      wake(first.thread);
    }
    if (handed != null) {
      for (Waiter w : gateQueue) {
        if (w.spec.equals(handed.spec())) {
          if (w != first || gateHeld) {
            wake(w.thread);
          }
          break;
        }
      }
    }
  }

  private void wakeAll() {
    for (Waiter w : gateQueue) {
      wake(w.thread);
    }
  }

  private void wake(Thread t) {
    wakes++;
    LockSupport.unpark(t);
  }

  /** How many threads this state has unparked: for tests of the wake-one rule. */
  int wakes() {
    mu.lock();
    try {
      return wakes;
    } finally {
      mu.unlock();
    }
  }

  private void wakeReleaseWaiter() {
    Thread t = releaseWaiter;
    if (t != null) {
      wake(t);
    }
  }

  /**
   * A release notification. If a head is competing, {@code onWoken} runs before the head can
   * resume (it needs this lock to return from its wait), so the event is recorded before anything
   * the woken thread does.
   */
  void signalRelease(Runnable onWoken) {
    mu.lock();
    try {
      releaseSeq++;
      if (headWaiting) {
        onWoken.run();
      }
      wakeReleaseWaiter();
    } finally {
      mu.unlock();
    }
  }

  /**
   * Client close: every waiter, at the gate or at the backend, wakes and sees the client closed.
   * Returns a grant handed on and not yet taken, which the caller must release, or null.
   */
  @Nullable Handed close() {
    mu.lock();
    try {
      closed = true;
      wakeReleaseWaiter();
      wakeAll();
      Handed left = handed;
      handed = null;
      return left;
    } finally {
      mu.unlock();
    }
  }
}
