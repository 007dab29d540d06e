package dev.dlock.redis;

import static dev.dlock.redis.RedisBackend.millis;

import dev.dlock.redis.ScriptCalls.AcquireReply;
import dev.dlock.redis.ScriptCalls.ReleaseMode;
import dev.dlock.redis.ScriptCalls.Side;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import io.lettuce.core.RedisFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fair lock, the read-write lock and the semaphore: one script family each, with keys of their
 * own under the name's hash tag. Why apart from the exclusive lock: that one keeps its two-command
 * fast path and its pushed grants, while these kinds share a simpler scheme. The script that refuses
 * an owner queues it, and the grant rule itself checks the queue (the head for a fair lock or a
 * writer, no writer ahead for a reader, the rank for a permit), so nothing is reserved. A release
 * or a cancel tells only the clients whose waiters that rule would now grant: the fair head, the
 * readers before the next writer (each client once), or one waiter per free permit. Their messages
 * start with '*' so the Inbox never takes one for an exclusive grant, and a lost message costs
 * at most one retry period.
 */
final class KindLocks {
  private final Calls calls;
  private final ScriptCalls script;
  private final Duration retryWhileQueued;
  /** Owners of this client that may hold a place in a queue of these kinds, to their request. */
  private final ConcurrentHashMap<String, LockRequest> waiting = new ConcurrentHashMap<>();

  KindLocks(Calls calls, ScriptCalls script, Duration waiterTimeout) {
    this.calls = calls;
    this.script = script;
    this.retryWhileQueued = waiterTimeout.dividedBy(3);
  }

  Attempt tryAcquire(LockRequest r) {
    if (r.willWait()) {
      // Recorded before the call: a wake-up may arrive before the answer that queued the owner.
      waiting.put(r.owner(), r);
    }
    AcquireReply a = calls.run(String.format("acquire %s lock '%s'", r.kind(), r.name()), acquire(r));
    if (a.granted()) {
      waiting.remove(r.owner());
      return Attempt.granted(a.token());
    }
    if (a.storedPermits() != 0) {
      throw new IllegalArgumentException(String.format(
          "semaphore '%s' is in use with %d permits, not %d: every client must use the same permit count",
          r.name(), a.storedPermits(), r.permits()));
    }
    long left = a.leftMillis();
    Duration retry = left < 0 || r.willWait() && left > retryWhileQueued.toMillis()
        ? retryWhileQueued : Duration.ofMillis(left);
    return Attempt.held(retry, a.holder());
  }

  private ScriptCall<AcquireReply> acquire(LockRequest r) {
    long lease = millis(r.leaseTime());
    return switch (r.kind()) {
      case FAIR -> script.fairAcquire(r.name(), r.owner(), lease, r.willWait());
      case READ, WRITE -> script.readWriteAcquire(r.name(), r.owner(), lease, Side.of(r.kind()),
          r.willWait(), r.writer());
      case PERMIT -> script.semaphoreAcquire(r.name(), r.owner(), lease, r.permits(), r.willWait());
      case EXCLUSIVE -> throw new IllegalArgumentException(
          String.format("exclusive lock '%s' has its own acquire", r.name()));
    };
  }

  boolean release(Grant g) {
    return calls.run(String.format("release %s lock '%s'", g.kind(), g.name()),
        script.kindRelease(g.kind(), g.name(), g.owner(), ReleaseMode.RELEASE));
  }

  /** Cancels the wait of a waiting owner of these kinds; false if the owner is not one. */
  boolean cancel(String name, String owner, boolean closed) {
    LockRequest r = waiting.remove(owner);
    if (r == null) {
      return false;
    }
    if (!closed) {
      calls.run(String.format("cancel the wait for %s lock '%s'", r.kind(), name),
          script.kindRelease(r.kind(), name, owner, ReleaseMode.CANCEL));
    }
    return true;
  }

  /** Sends the cancel of every waiting owner without waiting for the replies, for close. */
  void sendCancels(List<RedisFuture<Object>> sent) {
    waiting.forEach((owner, r) ->
        sent.add(calls.send(script.kindRelease(r.kind(), r.name(), owner, ReleaseMode.CANCEL))));
    waiting.clear();
  }

  void forget() {
    waiting.clear();
  }

  /** Extends the given grants in one script call; returns the ones no longer held. */
  Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    List<Grant> list = new ArrayList<>(grants);
    ScriptCall<List<Object>> renew = script.renewKinds(list, millis(leaseTime));
    List<Object> lost = calls.run("renew " + list.size() + " lease(s)", renew);
    Set<Grant> gone = new HashSet<>();
    for (int position : ForeignValue.lost(lost, renew.keys(), list, calls.server())) {
      gone.add(list.get(position - 1));
    }
    return gone;
  }
}
