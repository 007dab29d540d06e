package dev.dlock.redis.sim;

import dev.dlock.testkit.sim.Holder;
import dev.dlock.testkit.sim.Invariants;
import dev.dlock.testkit.sim.Scheduler;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One dlock client with one competing thread, as the engine runs it: Acquisition's loop (ask;
 * if held, sleep until a release notification or the retry hint capped by maxPollInterval; a wait
 * that ends without a grant cancels), the Renewer, release and hand-off, and the Redis backend's
 * client side: QueuedOwners (the send time of each try, the pushed grant), takePushed, and the
 * Inbox's handling of a pushed grant nobody waits for ('pass'). Script calls reach the server
 * after a random latency; their answer counts from the send time, as the engine counts it.
 */
final class SimClient implements Holder {
  enum Phase { IDLE, WAITING, HOLDING, DEAD }

  private final String id;
  private final Scheduler clock;
  private final SimServer server;
  private final SimFairServer fair;
  private final Invariants checks;
  private final Set<Bug> bugs;
  private final SimSettings settings;

  /** The engine's streak of local hand-offs, below the server's spare tokens. */
  static final int LOCAL_HAND_OFFS = 15;

  private Phase phase = Phase.IDLE;
  private int seq;
  private String owner;
  private long leaseMs;
  private boolean willWaitAtAll;
  private long giveUpAt;
  private long waitingSince;
  private boolean queuedEver;
  private boolean notified;
  private boolean sleeping;
  private int wakeId;
  // QueuedOwners: the owner that waits here, its last try's send time, the token pushed to it
  private String queuedOwner;
  private long queuedSentAt;
  private long pushedToken;
  /** The proposed fix: the token counter a refusing reply reported, as no push above it is stale. */
  private long refusedCounter;
  private final Set<String> tookLately = new HashSet<>();
  // the hold
  private long token;
  private long deadline;
  private int holdId;
  /** Hand-offs in a row on the current server grant. */
  private int handOffs;
  private long pausedUntil;

  SimClient(String id, Scheduler clock, SimServer server, SimFairServer fair, Invariants checks,
      Set<Bug> bugs, SimSettings settings) {
    this.id = id;
    this.clock = clock;
    this.server = server;
    this.fair = fair;
    this.checks = checks;
    this.bugs = bugs;
    this.settings = settings;
  }

  String id() {
    return id;
  }

  Phase phase() {
    return phase;
  }

  /** A waiter that will wait (not a one-shot try, nor past its own deadline) and is not frozen. */
  boolean waits() {
    return phase == Phase.WAITING && willWaitAtAll && clock.now() < giveUpAt && clock.now() >= pausedUntil;
  }

  /** Since when it waits, counting a pause as time it could not act. */
  long waitingSince() {
    return Math.max(waitingSince, pausedUntil);
  }

  @Override
  public boolean holdsValid() {
    return phase == Phase.HOLDING && clock.now() < deadline;
  }

  @Override
  public String holding() {
    return owner + " token " + token + " valid until " + deadline;
  }

  /** Runs {@code step} at {@code when} unless this client died or froze meanwhile. */
  private void at(long when, Runnable step) {
    clock.at(when, () -> {
      if (phase == Phase.DEAD) {
        return;
      }
      if (clock.now() < pausedUntil) {
        at(pausedUntil, step);
        return;
      }
      step.run();
    });
  }

  private void call(Supplier<String> what, Runnable script) {
    long sent = clock.now();
    at(sent + (long) (clock.random().nextDouble() * settings.latencyMicros()), () -> {
      clock.trace(() -> "  " + id + " runs " + what.get() + " sent at " + sent);
      script.run();
    });
  }

  void start(long after) {
    at(clock.now() + after, this::begin);
  }

  /** A new acquisition: a new owner, lease, and how long it waits. */
  private void begin() {
    if (phase != Phase.IDLE) {
      return;
    }
    seq++;
    owner = id + ":" + seq;
    leaseMs = settings.leases()[clock.random().nextInt(settings.leases().length)];
    willWaitAtAll = clock.random().nextInt(8) != 0;
    giveUpAt = clock.random().nextInt(4) == 0
        ? clock.now() + (long) (clock.random().nextDouble() * 4_000_000) : Long.MAX_VALUE;
    waitingSince = clock.now();
    queuedEver = false;
    refusedCounter = 0;
    phase = Phase.WAITING;
    clock.trace(() -> id + " acquires as " + owner + " lease " + leaseMs + " ms"
        + (willWaitAtAll ? giveUpAt == Long.MAX_VALUE ? "" : " waiting until " + giveUpAt : " once"));
    tryOnce();
  }

  /** One pass of Acquisition's loop: RedisBackend.tryAcquire or KindLocks.tryAcquire. */
  private void tryOnce() {
    wakeId++;
    sleeping = false;
    notified = false;
    long sent = clock.now();
    boolean willWait = willWaitAtAll && sent < giveUpAt;
    queuedEver |= willWait;
    boolean stale = !bugs.contains(Bug.STALE_PUSH_TAKEN) && pushedToken <= refusedCounter;
    if (willWait && owner.equals(queuedOwner) && pushedToken != 0 && !stale) { // takePushed
      long valid = Math.min(leaseMs, settings.waiterTimeoutMs()) * 1000;
      long left = bugs.contains(Bug.PUSH_VALID_FROM_ARRIVAL) ? valid : valid - (sent - queuedSentAt);
      if (left > 0) {
        clock.trace(() -> id + " takes the pushed grant, token " + pushedToken);
        tookLately.add(owner);
        queuedOwner = null;
        grant(pushedToken, sent + left);
        return;
      }
    }
    int mode = 0;
    if (willWait) { // QueuedOwners.waits: records the try's send time, forgets a pushed token
      mode = owner.equals(queuedOwner) ? 2 : 1;
      queuedOwner = owner;
      queuedSentAt = sent;
      pushedToken = 0;
    }
    if (fair != null) {
      call(() -> "fair-acquire.lua " + owner, () -> answer(fair.acquire(owner, leaseMs, willWait, clock.now()), sent, willWait));
      return;
    }
    int m = mode;
    call(() -> "acquire.lua " + owner + " mode " + m, () -> answer(server.acquire(owner, leaseMs, m, clock.now()), sent, willWait));
  }

  private void answer(SimServer.Reply r, long sent, boolean willWait) {
    if (phase != Phase.WAITING) {
      return;
    }
    clock.trace(() -> "  " + id + " " + (r.granted() ? "granted token " + r.token() : "refused, " + r.leftMs() + " ms, " + r.holder()));
    if (r.granted()) {
      if (owner.equals(queuedOwner)) {
        queuedOwner = null;
      }
      grant(r.token(), sent + leaseMs * 1000);
      return;
    }
    refusedCounter = Math.max(refusedCounter, r.counter());
    if (!willWait) {
      giveUp();
      return;
    }
    long retryMs = settings.waiterTimeoutMs() / 3; // retryWhileQueued
    long left = r.leftMs();
    if (fair != null) { // KindLocks
      retryMs = left < 0 || left > retryMs ? retryMs : left;
    } else { // RedisBackend.answer
      retryMs = Math.min(Math.max(0, left), retryMs);
    }
    long pause = Math.max(1000, Math.min(retryMs * 1000, settings.maxPollMs() * 1000));
    if (bugs.contains(Bug.NO_REPOLL)) {
      pause = Long.MAX_VALUE / 4;
    }
    long stillLeft = giveUpAt - clock.now();
    if (notified) {
      tryOnce();
      return;
    }
    int wake = wakeId;
    sleeping = true;
    at(clock.now() + Math.min(pause, Math.max(0, stillLeft)), () -> {
      if (phase == Phase.WAITING && wake == wakeId) {
        tryOnce();
      }
    });
  }

  /** The wait ended without a grant: Acquisition's finally cancels a place it may hold. */
  private void giveUp() {
    phase = Phase.IDLE;
    clock.trace(() -> "  " + id + " gives up " + owner);
    String o = owner;
    if (queuedEver) {
      queuedOwner = null; // RedisBackend.cancel: removed before the script runs
      call(() -> "cancel " + o, () -> {
        if (fair != null) {
          fair.cancel(o, clock.now());
        } else {
          server.cancel(o, false, clock.now());
        }
      });
    }
    start(thinkTime());
  }

  private void grant(long t, long validUntil) {
    checks.granted(owner, t);
    phase = Phase.HOLDING;
    token = t;
    deadline = validUntil;
    int hold = ++holdId;
    clock.trace(() -> "  " + id + " holds " + holding());
    long now = clock.now();
    at(now + (long) (clock.random().nextDouble() * 2 * leaseMs * 1000), () -> {
      if (phase == Phase.HOLDING && hold == holdId) {
        release();
      }
    });
    scheduleRenewal(hold, Math.min(leaseMs * 1000 / 3, Math.max(0, (deadline - now) / 2)));
  }

  /** The Renewer: every third of a lease, sooner when the grant falls short of it. */
  private void scheduleRenewal(int hold, long after) {
    at(clock.now() + after, () -> {
      if (phase != Phase.HOLDING || hold != holdId) {
        return;
      }
      if (clock.now() >= deadline) {
        lost("its lease ran out before a renewal");
        return;
      }
      long sent = clock.now();
      String o = owner;
      call(() -> fair != null ? "renew-kinds.lua " + o : "renew.lua " + o, () -> {
        boolean kept = fair != null ? fair.renew(o, leaseMs, clock.now()) : server.renew(o, leaseMs, clock.now());
        if (phase != Phase.HOLDING || hold != holdId) {
          return;
        }
        if (!kept) {
          lost("renewal found it gone");
          return;
        }
        deadline = Math.max(deadline, sent + leaseMs * 1000);
        scheduleRenewal(hold, sent + leaseMs * 1000 / 3 - clock.now());
      });
    });
  }

  private void lost(String why) {
    clock.trace(() -> "  " + id + " lost " + owner + ": " + why);
    handOffs = 0;
    holdId++;
    phase = Phase.IDLE;
    start(thinkTime());
  }

  /**
   * Lock.unlock: the hold ends when the call is sent; on Redis, sometimes a hand-off instead, to
   * another thread of this client with no command (the engine's local hand-off): the grant stays
   * the server's, the next turn gets the next token, which the server left spare, and the same
   * deadline.
   */
  private void release() {
    holdId++;
    phase = Phase.IDLE;
    String from = owner;
    // As the engine: never a hold whose deadline has passed (its grant may be another's by now).
    if (fair == null && handOffs < LOCAL_HAND_OFFS && clock.now() < deadline
        && clock.random().nextInt(4) == 0) {
      handOffs++;
      long t = token + 1;
      clock.trace(() -> id + " hands " + from + "'s grant to another thread with token " + t);
      grant(t, deadline);
      return;
    }
    handOffs = 0;
    clock.trace(() -> id + " releases " + from);
    call(() -> fair != null ? "fair-release.lua " + from : "release.lua " + from, () -> {
      if (fair != null) {
        fair.release(from, 0, clock.now());
      } else {
        server.release(from, clock.now());
      }
    });
    start(thinkTime());
  }

  private long thinkTime() {
    return (long) (clock.random().nextDouble() * 300_000);
  }

  /** A message on this client's channel: Inbox, then RedisBackend.pushed, or a wake-up (no token). */
  void deliver(Published m) {
    if (phase == Phase.DEAD) {
      return;
    }
    if (clock.now() < pausedUntil) {
      clock.at(pausedUntil, () -> deliver(m));
      return;
    }
    clock.trace(() -> id + " gets " + m);
    if (m.token() == 0) {
      wake();
      return;
    }
    if (m.owner().equals(queuedOwner)) { // QueuedOwners.push, then context.released(name)
      pushedToken = m.token();
      wake();
    } else if (!tookLately.contains(m.owner())) { // nobody waits for it: pass it on
      if (fair != null) {
        call(() -> "fair-release.lua pass " + m.owner(), () -> fair.release(m.owner(), m.token(), clock.now()));
      } else {
        call(() -> "release.lua pass " + m.owner(), () -> server.cancel(m.owner(), true, clock.now()));
      }
    }
  }

  private void wake() {
    notified = true;
    if (phase == Phase.WAITING && sleeping) {
      int wake = wakeId;
      at(clock.now(), () -> {
        if (phase == Phase.WAITING && wake == wakeId) {
          tryOnce();
        }
      });
    }
  }

  /** The process dies: nothing more runs here; what it left at the server stays. */
  void crash() {
    clock.trace(() -> id + " crashes in " + phase);
    phase = Phase.DEAD;
  }

  /** A stop-the-world pause: nothing of this client runs until it ends. */
  void pause(long micros) {
    clock.trace(() -> id + " pauses for " + micros);
    pausedUntil = Math.max(pausedUntil, clock.now() + micros);
  }
}
