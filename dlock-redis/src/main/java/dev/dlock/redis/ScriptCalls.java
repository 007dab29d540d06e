package dev.dlock.redis;

import static dev.dlock.redis.Keys.utf8;

import dev.dlock.redis.Scripts.Script;
import dev.dlock.spi.Grant;
import dev.dlock.spi.LockKind;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Each script of this package as one method with named parameters: the only place that knows the
 * order of a script's KEYS and ARGV, how its modes are spelled on the wire, and how its positional
 * reply reads. Why one place: the scripts and the Java that calls them change together, and a
 * position read wrongly fails only at run time.
 */
final class ScriptCalls {
  /** How acquire.lua treats a refused owner. */
  enum AcquireMode {
    /** A one-shot try: the owner is not queued. */
    ONCE("0"),
    /** The owner will wait: it joins the queue. */
    WAIT("1"),
    /** The owner waits and may hold a place in the queue already. */
    QUEUED("2");

    final byte[] wire;

    AcquireMode(String wire) {
      this.wire = utf8(wire);
    }
  }

  /** What the release scripts do. */
  enum ReleaseMode {
    /** Frees a grant. */
    RELEASE("release"),
    /** Gives up a wait: leaves the queue and frees a grant made to the owner meanwhile. */
    CANCEL("cancel"),
    /** Passes on a grant pushed to an owner that no longer waits, while nobody took it. */
    PASS("pass");

    final byte[] wire;
    final String verb;

    ReleaseMode(String wire) {
      this.wire = utf8(wire);
      this.verb = wire;
    }
  }

  /** What redlock-release.lua does on one node. */
  enum RedlockRelease {
    /** Frees the owner's grant, and tells the oldest waiter if the lock is free. */
    RELEASE("release"),
    /** Frees a grant that won no majority; the owner keeps its place, and nobody is told. */
    UNDO("undo"),
    /** Gives up a wait: leaves the queue, frees a grant made meanwhile, tells as RELEASE does. */
    CANCEL("cancel"),
    /** Leaves the queue without freeing anything, and tells as RELEASE does. */
    PASS("pass");

    final byte[] wire;

    RedlockRelease(String wire) {
      this.wire = utf8(wire);
    }
  }

  /** The side of a read-write lock. */
  enum Side {
    READ("r"),
    WRITE("w");

    final byte[] wire;

    Side(String wire) {
      this.wire = utf8(wire);
    }

    static Side of(LockKind kind) {
      return kind == LockKind.READ ? READ : WRITE;
    }
  }

  /**
   * An acquire script's reply. A grant comes as the bare token, an integer, which Lettuce's
   * {@code MULTI} output gives as a list of one; a refusal as a list that starts with its status.
   * Why not {1, token}: the grant is the hot path, and an integer costs the server less than a
   * two-element array (about 1 µs of a 55 µs uncontended cycle, both pinned to one CPU).
   *
   * @param token         the fencing token, if granted
   * @param leftMillis    if refused, how long until a lease runs out; -1 if only the queue is ahead
   * @param holder        if refused, the holding owner, or null if none is known
   * @param storedPermits if a semaphore refused for another permit count, that count; else 0
   * @param counter       if refused, the lock's token counter at that moment; else 0
   */
  record AcquireReply(boolean granted, long token, long leftMillis, @Nullable String holder,
      long storedPermits, long counter) {
    static AcquireReply of(Object raw) {
      List<?> r = (List<?>) raw;
      if (r.size() == 1) {
        return new AcquireReply(true, (Long) r.get(0), 0, null, 0, 0);
      }
      long status = (Long) r.get(0);
      if (status == -1L) {
        return new AcquireReply(false, 0, 0, null, (Long) r.get(1), 0);
      }
      String holder = text(r.get(2));
      long counter = r.size() > 3 ? (Long) r.get(3) : 0;
      return new AcquireReply(false, 0, (Long) r.get(1), holder.isEmpty() ? null : holder, 0, counter);
    }
  }

  /** inspect.lua's reply for a held lock. */
  record InspectReply(String owner, long ttlMillis, long token) {
    static Optional<InspectReply> of(Object raw) {
      List<?> r = (List<?>) raw;
      return r.isEmpty() ? Optional.empty()
          : Optional.of(new InspectReply(text(r.get(0)), (Long) r.get(1), (Long) r.get(2)));
    }
  }

  private static final byte[] WAITS = utf8("1");
  private static final byte[] NO_TOKEN = utf8("0");
  private static final byte[] TRIES_ONCE = utf8("0");

  private final Keys keys;
  private final byte[] waiterTimeoutMs;
  // Read and replaced whole by any thread; the bytes are never written once made.
  private volatile Sent lastLease = new Sent(-1, new byte[0]);

  /**
   * @param waiterTimeoutMillis how long a waiter keeps its place without asking again, and how
   *                            long a grant pushed to it lasts at most
   */
  ScriptCalls(Keys keys, long waiterTimeoutMillis) {
    this.keys = keys;
    this.waiterTimeoutMs = ascii(waiterTimeoutMillis);
  }

  ScriptCall<AcquireReply> acquire(String name, String owner, long leaseMillis, AcquireMode mode) {
    return new ScriptCall<>(Script.ACQUIRE, keys.of(name),
        args(utf8(owner), lease(leaseMillis), mode.wire, waiterTimeoutMs), AcquireReply::of);
  }

  /** A lease as sent: the last one's bytes again, as a client's leases are nearly always the same. */
  private byte[] lease(long millis) {
    Sent last = lastLease;
    if (last.millis() != millis) {
      last = new Sent(millis, ascii(millis));
      lastLease = last;
    }
    return last.wire();
  }

  private record Sent(long millis, byte[] wire) {}

  /** release.lua: true if the owner held (or had been pushed) the lock and it is freed. */
  ScriptCall<Boolean> release(String name, String owner, ReleaseMode mode) {
    return new ScriptCall<>(Script.RELEASE, keys.of(name), args(utf8(owner), mode.wire,
        keys.channels(name), utf8(name), waiterTimeoutMs, keys.publish()), ScriptCalls::one);
  }

  /**
   * redlock-acquire.lua on one node. {@code arrival} is the waiting owner's arrival stamp, the
   * same on every node; 0 for a one-shot try, which takes no place in the queue.
   */
  ScriptCall<AcquireReply> redlockAcquire(String name, String owner, long ttlMillis, long arrival) {
    return new ScriptCall<>(Script.REDLOCK_ACQUIRE, redlockKeys(name), args(utf8(owner),
        ascii(ttlMillis), arrival == 0 ? new byte[0] : ascii(arrival), waiterTimeoutMs),
        AcquireReply::of);
  }

  /**
   * redlock-release.lua on one node: true if the owner held the lock there and it is freed.
   * {@code release} names this release in the wake-ups it sends: the same on every node, so that a
   * waiter counts only nodes that told it of the same release (see {@link RedlockWakes}).
   */
  ScriptCall<Boolean> redlockRelease(String name, String owner, RedlockRelease mode, long release) {
    return new ScriptCall<>(Script.REDLOCK_RELEASE, redlockKeys(name),
        args(utf8(owner), mode.wire, keys.channels(name), utf8(name), ascii(release)), ScriptCalls::one);
  }

  /** The Redlock scripts' keys: the exclusive lock's lock, token, queue and alive keys. */
  private byte[][] redlockKeys(String name) {
    return Arrays.copyOf(keys.of(name), 4);
  }

  /** renew.lua: the reply lists the grants no longer held; {@link ForeignValue#lost} reads it. */
  ScriptCall<List<Object>> renew(List<Grant> grants, long ttlMillis) {
    byte[][] args = new byte[grants.size() + 1][];
    args[0] = ascii(ttlMillis);
    for (int i = 0; i < grants.size(); i++) {
      args[i + 1] = utf8(grants.get(i).owner());
    }
    return new ScriptCall<>(Script.RENEW, keys.locks(grants), args, ScriptCalls::list);
  }

  ScriptCall<Optional<InspectReply>> inspect(String name) {
    return new ScriptCall<>(Script.INSPECT, keys.of(name), args(), InspectReply::of);
  }

  ScriptCall<AcquireReply> fairAcquire(String name, String owner, long leaseMillis, boolean willWait) {
    return new ScriptCall<>(Script.FAIR_ACQUIRE, keys.fair(name),
        args(utf8(owner), ascii(leaseMillis), waits(willWait), waiterTimeoutMs), AcquireReply::of);
  }

  /** @param writer for a read: the write owner it may read beside (a downgrade), or null */
  ScriptCall<AcquireReply> readWriteAcquire(String name, String owner, long leaseMillis, Side side,
      boolean willWait, @Nullable String writer) {
    return new ScriptCall<>(Script.RW_ACQUIRE, keys.readWrite(name), args(utf8(owner),
        ascii(leaseMillis), side.wire, waits(willWait), waiterTimeoutMs,
        utf8(writer == null ? "" : writer)), AcquireReply::of);
  }

  ScriptCall<AcquireReply> semaphoreAcquire(String name, String owner, long leaseMillis, int permits,
      boolean willWait) {
    return new ScriptCall<>(Script.SEM_ACQUIRE, keys.semaphore(name), args(utf8(owner),
        ascii(leaseMillis), ascii(permits), waits(willWait), waiterTimeoutMs), AcquireReply::of);
  }

  /**
   * fair-release.lua, rw-release.lua or sem-release.lua, by {@code kind}, to release or cancel:
   * true if the owner held it (release), or held or waited for it (cancel).
   */
  ScriptCall<Boolean> kindRelease(LockKind kind, String name, String owner, ReleaseMode mode) {
    if (mode == ReleaseMode.PASS) {
      throw new IllegalArgumentException("mode PASS of " + kind + " lock '" + name + "' needs the token");
    }
    return kindRelease(kind, name, owner, mode, NO_TOKEN);
  }

  /** The same script passing on the grant with {@code token} pushed to {@code owner}: true if freed. */
  ScriptCall<Boolean> kindPass(LockKind kind, String name, String owner, long token) {
    return kindRelease(kind, name, owner, ReleaseMode.PASS, ascii(token));
  }

  private ScriptCall<Boolean> kindRelease(LockKind kind, String name, String owner, ReleaseMode mode,
      byte[] token) {
    byte[][] args = args(utf8(owner), mode.wire, keys.channels(name), utf8(name), keys.publish(),
        waiterTimeoutMs, token);
    return switch (kind) {
      case FAIR -> new ScriptCall<>(Script.FAIR_RELEASE, keys.fair(name), args, ScriptCalls::one);
      case READ, WRITE -> new ScriptCall<>(Script.RW_RELEASE, keys.readWrite(name),
          append(args, Side.of(kind).wire), ScriptCalls::one);
      case PERMIT -> new ScriptCall<>(Script.SEM_RELEASE, keys.semaphore(name), args, ScriptCalls::one);
      case EXCLUSIVE -> throw new IllegalArgumentException(
          String.format("exclusive lock '%s' has its own release", name));
    };
  }

  /**
   * renew-kinds.lua: each grant's key is the owner string of a fair or write lock ('s'), or the
   * zset of readers or permit holders ('z'). The reply reads as renew.lua's.
   */
  ScriptCall<List<Object>> renewKinds(List<Grant> grants, long ttlMillis) {
    byte[][] grantKeys = new byte[grants.size()][];
    byte[][] args = new byte[2 * grants.size() + 1][];
    args[0] = ascii(ttlMillis);
    for (int i = 0; i < grants.size(); i++) {
      Grant g = grants.get(i);
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
    return new ScriptCall<>(Script.RENEW_KINDS, grantKeys, args, ScriptCalls::list);
  }

  private static byte[] waits(boolean willWait) {
    return willWait ? WAITS : TRIES_ONCE;
  }

  private static boolean one(Object raw) {
    return (Long) raw == 1L;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object raw) {
    return (List<Object>) raw;
  }

  private static String text(Object raw) {
    return new String((byte[]) raw, StandardCharsets.UTF_8);
  }

  private static byte[][] args(byte[]... args) {
    return args;
  }

  private static byte[][] append(byte[][] first, byte[] last) {
    byte[][] all = Arrays.copyOf(first, first.length + 1);
    all[first.length] = last;
    return all;
  }

  static byte[] ascii(Object o) {
    return String.valueOf(o).getBytes(StandardCharsets.US_ASCII);
  }
}
