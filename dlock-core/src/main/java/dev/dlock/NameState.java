package dev.dlock;

import dev.dlock.spi.LockKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One client's state for one lock name. The gate, a fair semaphore, lets one local thread at a time
 * compete at the backend (the "head"); the others queue on it in FIFO order. The gate is handed on
 * as soon as the head is granted, not when it releases, so the next local waiter queues at the
 * backend like any remote one, and a release wakes at most one waiter: whichever the backend sends
 * its notification to. The head sleeps on a release sequence number, so a notification that arrives
 * between its attempt and its sleep is not lost. Lives in the engine's map while referenced by a
 * waiter or a hold ({@code refs}, changed only inside the map's compute).
 */
final class NameState {
  final Object key;
  final String name;
  final LockKind kind;
  final Semaphore gate = new Semaphore(1, true);
  int refs;

  // Usually one hold. More while a lost hold is still unreleased and a newer grant exists, or for
  // the kinds held by many at once: readers on several threads, permits.
  private final List<Hold> holds = new ArrayList<>(1);

  private final ReentrantLock mu = new ReentrantLock();
  private final Condition releasedCond = mu.newCondition();
  private long releaseSeq;
  private boolean headWaiting;
  private boolean closed;

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
  synchronized Hold heldBy(Thread thread) {
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

  /** Enters the gate, waiting up to {@code nanos} (forever if negative). */
  boolean enterGate(long nanos) throws InterruptedException {
    if (nanos < 0) {
      gate.acquire();
      return true;
    }
    return gate.tryAcquire(nanos, TimeUnit.NANOSECONDS);
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

  /** Sleeps until a release after {@code seq}, the timeout, or close. True if a release came. */
  boolean awaitRelease(long seq, long nanos) throws InterruptedException {
    mu.lock();
    try {
      while (releaseSeq == seq && !closed) {
        if (nanos <= 0) {
          return false;
        }
        nanos = releasedCond.awaitNanos(nanos);
      }
      return releaseSeq != seq;
    } finally {
      mu.unlock();
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
      releasedCond.signal();
    } finally {
      mu.unlock();
    }
  }

  /** Client close: every waiter, at the gate or at the backend, wakes and sees the client closed. */
  void close() {
    mu.lock();
    try {
      closed = true;
      releasedCond.signalAll();
    } finally {
      mu.unlock();
    }
    gate.release(Integer.MAX_VALUE / 2);
  }
}
