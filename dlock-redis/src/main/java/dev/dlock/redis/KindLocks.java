package dev.dlock.redis;

import static dev.dlock.redis.RedisBackend.millis;

import dev.dlock.redis.ScriptCalls.AcquireReply;
import dev.dlock.redis.ScriptCalls.ReleaseMode;
import dev.dlock.redis.ScriptCalls.Side;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockRequest;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The fair lock, the read-write lock and the semaphore: one script family each, with keys of their
 * own under the name's hash tag. Why apart from the exclusive lock: that one keeps its two-command
 * fast path, its lock value with a state, and its hand-off. The script that refuses an owner queues
 * it, and the grant rule itself checks the queue (the head for a fair lock or a writer, no writer
 * ahead for a reader, the rank for a permit), so nothing is reserved. A release or a cancel grants
 * the lock at once to the waiters that rule would now let in (the fair head, the writer at the head
 * or the readers before the next writer, one waiter per free permit) and pushes each its token, as
 * the exclusive lock's release does: the waiters are recorded in the same {@link QueuedOwners},
 * which the backend's {@link Inbox} fills, and a waiter takes its pushed grant here without asking
 * again. A lost message costs at most one retry period, and the retry takes the standing grant.
 */
final class KindLocks {
  private final Calls calls;
  private final ScriptCalls script;
  private final QueuedOwners queued;
  private final Duration waiterTimeout;
  private final Duration retryWhileQueued;
  private final boolean takesPushed;
  private final LongSupplier clock;

  /**
   * @param queued      the waiting owners, shared with the exclusive lock and the Inbox
   * @param takesPushed false with the replica policy on: a pushed grant is taken by asking, so
   *                    that the grant waits for the replicas
   * @param clock       the engine's monotonic clock, in nanoseconds
   */
  KindLocks(Calls calls, ScriptCalls script, QueuedOwners queued, Duration waiterTimeout,
      boolean takesPushed, LongSupplier clock) {
    this.calls = calls;
    this.script = script;
    this.queued = queued;
    this.waiterTimeout = waiterTimeout;
    this.retryWhileQueued = waiterTimeout.dividedBy(3);
    this.takesPushed = takesPushed;
    this.clock = clock;
  }

  Attempt tryAcquire(LockRequest r) {
    if (r.willWait()) {
      Attempt pushed = takesPushed
          ? queued.take(r.owner(), r.name(), r.leaseTime(), waiterTimeout, clock.getAsLong()) : null;
      if (pushed != null) {
        return pushed;
      }
      // Recorded before the call: a pushed grant may arrive before the answer that queued the owner.
      queued.waits(r.owner(), r.name(), r.kind(), clock.getAsLong());
    }
    AcquireReply a;
    try {
      a = calls.run(() -> String.format("acquire %s lock '%s'", r.kind(), r.name()), acquire(r));
    } catch (RuntimeException e) {
      queued.unanswered(r.owner());
      throw e;
    }
    if (a.granted()) {
      queued.remove(r.owner());
      return Attempt.granted(a.token());
    }
    if (a.storedPermits() != 0) {
      queued.remove(r.owner());
      throw new IllegalArgumentException(String.format(
          "semaphore '%s' is in use with %d permits, not %d: every client must use the same permit count",
          r.name(), a.storedPermits(), r.permits()));
    }
    queued.refused(r.owner(), a.counter());
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
    return calls.run(() -> String.format("release %s lock '%s'", g.kind(), g.name()),
        script.kindRelease(g.kind(), g.name(), g.owner(), ReleaseMode.RELEASE));
  }
}
