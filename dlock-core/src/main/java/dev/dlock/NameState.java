package dev.dlock;

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
  final String name;
  final Semaphore gate = new Semaphore(1, true);
  int refs;

  // Usually one hold; more only while a lost hold is still unreleased and a newer grant exists.
  private Hold current;
  private List<Hold> superseded;

  private final ReentrantLock mu = new ReentrantLock();
  private final Condition releasedCond = mu.newCondition();
  private long releaseSeq;
  private boolean headWaiting;
  private boolean closed;

  NameState(String name) {
    this.name = name;
  }

  synchronized void install(Hold h) {
    if (current != null && !current.isEnded()) {
      if (superseded == null) {
        superseded = new ArrayList<>(2);
      }
      superseded.add(current);
    }
    current = h;
  }

  synchronized void remove(Hold h) {
    if (current == h) {
      current = null;
    } else if (superseded != null && superseded.remove(h) && superseded.isEmpty()) {
      superseded = null;
    }
  }

  /** The hold the thread acquired and has not ended, if any. */
  synchronized Hold heldBy(Thread thread) {
    if (current != null && current.thread == thread) {
      return current;
    }
    if (superseded != null) {
      for (Hold h : superseded) {
        if (h.thread == thread) {
          return h;
        }
      }
    }
    return null;
  }

  synchronized List<Hold> holds() {
    List<Hold> all = new ArrayList<>(2);
    if (current != null) {
      all.add(current);
    }
    if (superseded != null) {
      all.addAll(superseded);
    }
    return all;
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
