package dev.dlock.redis;

import static dev.dlock.redis.Keys.utf8;
import static dev.dlock.redis.RedisBackend.ascii;
import static dev.dlock.redis.RedisBackend.millis;

import dev.dlock.redis.Scripts.Script;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import io.lettuce.core.RedisFuture;
import java.nio.charset.StandardCharsets;
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
  private static final byte[] RELEASE = utf8("release");
  private static final byte[] CANCEL = utf8("cancel");

  private final RedisBackend backend;
  private final Scripts scripts;
  private final Keys keys;
  private final byte[] waiterTimeoutMs;
  private final Duration retryWhileQueued;
  /** Owners of this client that may hold a place in a queue of these kinds, to their request. */
  private final ConcurrentHashMap<String, LockRequest> waiting = new ConcurrentHashMap<>();

  KindLocks(RedisBackend backend, Scripts scripts, Keys keys, Duration waiterTimeout) {
    this.backend = backend;
    this.scripts = scripts;
    this.keys = keys;
    this.waiterTimeoutMs = ascii(waiterTimeout.toMillis());
    this.retryWhileQueued = waiterTimeout.dividedBy(3);
  }

  Attempt tryAcquire(LockRequest r) {
    if (r.willWait()) {
      // Recorded before the call: a wake-up may arrive before the answer that queued the owner.
      waiting.put(r.owner(), r);
    }
    List<Object> a = acquire(r, String.format("acquire %s lock '%s'", r.kind(), r.name()));
    long status = (Long) a.get(0);
    if (status == 1L) {
      waiting.remove(r.owner());
      return Attempt.granted((Long) a.get(1));
    }
    if (status == -1L) {
      throw new IllegalArgumentException(String.format(
          "semaphore '%s' is in use with %d permits, not %d: every client must use the same permit count",
          r.name(), (Long) a.get(1), r.permits()));
    }
    long left = (Long) a.get(1);
    Duration retry = left < 0 || r.willWait() && left > retryWhileQueued.toMillis()
        ? retryWhileQueued : Duration.ofMillis(left);
    String holder = new String((byte[]) a.get(2), StandardCharsets.UTF_8);
    return Attempt.held(retry, holder.isEmpty() ? null : holder);
  }

  private List<Object> acquire(LockRequest r, String what) {
    byte[] owner = utf8(r.owner());
    byte[] lease = ascii(millis(r.leaseTime()));
    byte[] wait = ascii(r.willWait() ? 1 : 0);
    return switch (r.kind()) {
      case FAIR -> backend.run(what, Script.FAIR_ACQUIRE, keys.fair(r.name()), owner, lease, wait,
          waiterTimeoutMs);
      case READ, WRITE -> backend.run(what, Script.RW_ACQUIRE, keys.readWrite(r.name()), owner, lease,
          side(r.kind()), wait, waiterTimeoutMs, utf8(r.writer() == null ? "" : r.writer()));
      case PERMIT -> backend.run(what, Script.SEM_ACQUIRE, keys.semaphore(r.name()), owner, lease,
          ascii(r.permits()), wait, waiterTimeoutMs);
      case EXCLUSIVE -> throw new IllegalArgumentException(
          String.format("exclusive lock '%s' has its own acquire", r.name()));
    };
  }

  boolean release(Grant g) {
    Long freed = backend.run(String.format("release %s lock '%s'", g.kind(), g.name()),
        releaseScript(g.kind()), keysOf(g.kind(), g.name()), releaseArgs(g.kind(), g.name(), g.owner(),
            RELEASE));
    return freed == 1L;
  }

  /** Cancels the wait of a waiting owner of these kinds; false if the owner is not one. */
  boolean cancel(String name, String owner, boolean closed) {
    LockRequest r = waiting.remove(owner);
    if (r == null) {
      return false;
    }
    if (!closed) {
      backend.run(String.format("cancel the wait for %s lock '%s'", r.kind(), name),
          releaseScript(r.kind()), keysOf(r.kind(), name), releaseArgs(r.kind(), name, owner, CANCEL));
    }
    return true;
  }

  /** Sends the cancel of every waiting owner without waiting for the replies, for close. */
  void sendCancels(List<RedisFuture<Object>> sent) {
    waiting.forEach((owner, r) -> sent.add(scripts.send(releaseScript(r.kind()), keysOf(r.kind(), r.name()),
        releaseArgs(r.kind(), r.name(), owner, CANCEL))));
    waiting.clear();
  }

  void forget() {
    waiting.clear();
  }

  /** Extends the given grants in one script call; returns the ones no longer held. */
  Set<Grant> renew(Collection<Grant> grants, Duration leaseTime) {
    List<Grant> list = new ArrayList<>(grants);
    byte[][] grantKeys = new byte[list.size()][];
    byte[][] args = new byte[2 * list.size() + 1][];
    args[0] = ascii(millis(leaseTime));
    for (int i = 0; i < list.size(); i++) {
      Grant g = list.get(i);
      grantKeys[i] = switch (g.kind()) {
        case FAIR -> keys.fair(g.name())[0];
        case WRITE -> keys.readWrite(g.name())[0];
        case READ -> keys.readWrite(g.name())[1];
        case PERMIT -> keys.semaphore(g.name())[0];
        case EXCLUSIVE -> throw new IllegalArgumentException(
            String.format("exclusive lock '%s' has its own renewal", g.name()));
      };
      args[2 * i + 1] = ascii(g.kind() == LockKind.FAIR || g.kind() == LockKind.WRITE ? "s" : "z");
      args[2 * i + 2] = utf8(g.owner());
    }
    List<Object> lost = backend.run("renew " + list.size() + " lease(s)", Script.RENEW_KINDS,
        grantKeys, args);
    Set<Grant> gone = new HashSet<>();
    for (int position : ForeignValue.lost(lost, grantKeys, list, backend.describe())) {
      gone.add(list.get(position - 1));
    }
    return gone;
  }

  private static Script releaseScript(LockKind kind) {
    return switch (kind) {
      case FAIR -> Script.FAIR_RELEASE;
      case READ, WRITE -> Script.RW_RELEASE;
      case PERMIT -> Script.SEM_RELEASE;
      case EXCLUSIVE -> throw new IllegalArgumentException("the exclusive lock has its own release");
    };
  }

  private byte[][] keysOf(LockKind kind, String name) {
    return switch (kind) {
      case FAIR -> keys.fair(name);
      case READ, WRITE -> keys.readWrite(name);
      case PERMIT -> keys.semaphore(name);
      case EXCLUSIVE -> keys.of(name);
    };
  }

  private byte[][] releaseArgs(LockKind kind, String name, String owner, byte[] mode) {
    if (kind == LockKind.READ || kind == LockKind.WRITE) {
      return new byte[][] {utf8(owner), side(kind), mode, keys.channels(name), utf8(name), keys.publish()};
    }
    return new byte[][] {utf8(owner), mode, keys.channels(name), utf8(name), keys.publish()};
  }

  private static byte[] side(LockKind kind) {
    return ascii(kind == LockKind.READ ? "r" : "w");
  }
}
