package dev.dlock.redis;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockKind;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * This client's owners that may hold a place in the queue of a lock of any kind, with the send time
 * of each one's last try and the grant a release pushed to it, if one came. Why the send time: a
 * pushed grant whose token is above the counter that the head's last refusal reported was drawn
 * after that refusal, so after that try was sent, and its validity can safely count from the send;
 * one at or below it was drawn before the refusal, its message came late (a paused client, a slow
 * subscriber), the grant has lapsed, and it is not taken (found by the queue simulation, seed 73). A cancel removes the owner's
 * entry before its script runs, so a grant pushed meanwhile is either taken by the waiting thread
 * or freed by that script, never both. Why remember taken grants: on a cluster every node delivers
 * a copy of each message, and a copy reaching an owner that already took its grant must not pass
 * that grant on.
 */
final class QueuedOwners {
  /**
   * An owner's wait: the name and kind, when its last try was sent, the pushed token (0: none), and
   * the token counter the last refusal reported (0: none yet).
   */
  private record Waiting(String name, LockKind kind, long sentAt, long pushed, long refusedAt) {
    Waiting with(long pushed, long refusedAt) {
      return new Waiting(name, kind, sentAt, pushed, refusedAt);
    }
  }

  /** Each waiting owner, as {@link #forEach} gives them. */
  interface Visitor {
    void visit(String owner, String name, LockKind kind);
  }

  /** A grant a release pushed: its token, and when the owner's last try was sent. */
  record Pushed(long token, long lastTrySentAt) {}

  private static final int TAKEN_KEPT = 1024;

  private final ConcurrentHashMap<String, Waiting> queued = new ConcurrentHashMap<>();
  /** The owners that took a pushed grant lately, oldest first. */
  private final Map<String, Boolean> taken = new LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > TAKEN_KEPT;
    }
  };

  /**
   * Records {@code owner} as waiting for {@code name}, with a try sent {@code now}, before the call
   * that may queue it, since a pushed grant may arrive before that call's answer. True if it was
   * recorded already: it may have a place in the queue.
   */
  boolean waits(String owner, String name, LockKind kind, long now) {
    return queued.put(owner, new Waiting(name, kind, now, 0, 0)) != null;
  }

  /**
   * Records that the server refused {@code owner}'s last try when the lock's token counter stood at
   * {@code counter}. A grant pushed with a token at or below it was drawn before that refusal, which
   * found the owner holding nothing: its message came late, and the grant is gone.
   */
  void refused(String owner, long counter) {
    queued.computeIfPresent(owner, (o, w) -> w.with(w.pushed(), counter));
  }

  /**
   * Records that {@code owner}'s last try got no answer: it may never have reached the server, so
   * no grant pushed to it until its next try is taken, as its validity cannot count from that
   * send; the next try asks the server instead, which grants a standing push whole.
   */
  void unanswered(String owner) {
    queued.computeIfPresent(owner, (o, w) -> w.with(w.pushed(), Long.MAX_VALUE));
  }

  /**
   * The grant pushed to {@code owner} for {@code name}, or null if none was, if the one pushed is
   * older than the owner's last refusal (see {@link #refused}), or if its last try got no answer.
   */
  @Nullable Pushed takePushed(String owner, String name) {
    Waiting w = queued.get(owner);
    if (w == null || w.pushed() == 0 || !w.name().equals(name) || w.pushed() <= w.refusedAt()) {
      return null;
    }
    return new Pushed(w.pushed(), w.sentAt());
  }

  /**
   * Takes the grant pushed to {@code owner} for {@code name}, or answers null if none may be taken
   * ({@link #takePushed}). The release granted it for {@code waiterTimeout}, or the owner's lease
   * if shorter (its last try recorded it), at a moment after the server answered that try, so its
   * validity counts from when that try was sent ({@code now} and the send on one clock, in
   * nanoseconds); the engine renews it to a whole lease.
   */
  @Nullable Attempt take(String owner, String name, Duration leaseTime, Duration waiterTimeout, long now) {
    Pushed p = takePushed(owner, name);
    if (p == null) {
      return null;
    }
    long left = Math.min(leaseTime.toNanos(), waiterTimeout.toNanos()) - (now - p.lastTrySentAt());
    if (left <= 0) {
      return null; // it may have run out: ask, and the script grants it whole if it is still there
    }
    took(owner);
    return Attempt.granted(p.token(), Duration.ofNanos(left));
  }

  /** Records a grant pushed to {@code owner} for {@code name}; true if that owner waits for it here. */
  boolean push(String owner, String name, long token) {
    boolean[] waiting = {false};
    queued.computeIfPresent(owner, (o, w) -> {
      if (!w.name().equals(name)) {
        return w;
      }
      waiting[0] = true;
      return w.with(token, w.refusedAt());
    });
    return waiting[0];
  }

  /** Forgets {@code owner}'s wait; the kind it waited for, or null if it did not wait here. */
  @Nullable LockKind remove(String owner) {
    Waiting w = queued.remove(owner);
    return w == null ? null : w.kind();
  }

  /** {@code owner} took the grant pushed to it: it waits no more. */
  void took(String owner) {
    synchronized (taken) {
      taken.put(owner, Boolean.TRUE);
    }
    queued.remove(owner);
  }

  /** True if {@code owner} took a pushed grant lately, so another copy of that push is stale. */
  boolean tookLately(String owner) {
    synchronized (taken) {
      return taken.containsKey(owner);
    }
  }

  /** Each owner, with the name and kind it waits for. */
  void forEach(Visitor action) {
    queued.forEach((owner, w) -> action.visit(owner, w.name(), w.kind()));
  }

  void clear() {
    queued.clear();
    synchronized (taken) {
      taken.clear();
    }
  }
}
