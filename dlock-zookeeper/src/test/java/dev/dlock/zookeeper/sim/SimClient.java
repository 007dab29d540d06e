package dev.dlock.zookeeper.sim;

import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One client process with one ZooKeeper session and one owner competing for the lock, as
 * ZooKeeperBackend, QueueNodes, HeldNodes, SessionStates and the engine's waiting loop behave: it
 * creates its node (adopting it after a lost reply), lists the queue, holds when first, or watches
 * its predecessor and waits for the event or the re-poll; a waiter whose watched head was deleted
 * holds without listing again, counted from its last answered call, as the backend's grant is
 * (ZooKeeperBackend.confirmed; the old way is Bug.HEAD_GONE_UNBACKED). A holder counts its grant valid for the lease from the send time of
 * the try that granted it or of its last answered renewal, renews every third of the lease, then
 * releases or hands the grant to another owner of this client. Connection drops lose replies and
 * watch events; a pause freezes everything; a crash ends the process, its session left to expire.
 * One call is in flight at a time, besides pings.
 */
final class SimClient {
  enum Phase { IDLE, QUEUEING, WAITING, HOLDING, RELEASING, DEAD }

  private final String id;
  private final Simulation sim;
  private final SimServer server;
  private final Invariants checks;
  private final Set<Bug> bugs;
  private Phase phase = Phase.IDLE;
  private long session;
  private int connection;
  private boolean connected = true;
  private long pausedUntil;
  private long liveSince;
  private int owners;
  private String owner;
  private long node;
  private boolean uncertain;
  private long watched;
  private boolean watchedIsHead;
  private boolean headGone;
  private long attemptSentAt;
  /** The send time of the latest call answered on this session, as ZkSession.lastContact(). */
  private long lastContact;
  private long waitingSince;
  private long token;
  private long validFrom;
  private boolean lost;
  private int handOffs;
  private int polls;

  SimClient(String id, Simulation sim, SimServer server, Invariants checks, Set<Bug> bugs) {
    this.id = id;
    this.sim = sim;
    this.server = server;
    this.checks = checks;
    this.bugs = bugs;
  }

  String id() {
    return id;
  }

  Phase phase() {
    return phase;
  }

  void start(long delay) {
    session = server.openSession(this);
    liveSince = sim.now();
    sim.at(sim.now() + Timing.PING_EVERY, this::ping);
    later(delay, this::acquire);
  }

  // ---- what the invariants read

  long lease() {
    return bugs.contains(Bug.LEASE_IS_SESSION_TIMEOUT) ? Timing.SESSION_TIMEOUT : Timing.LEASE;
  }

  /** Counts its grant valid by its own lease rule: not told of a loss, and the lease not run out. */
  boolean holdsValid() {
    return phase == Phase.HOLDING && !lost && sim.now() < validFrom + lease();
  }

  long node() {
    return node;
  }

  String holding() {
    return id + "/" + owner + " (node " + node + ", token " + token + ", valid from " + validFrom + ")";
  }

  /** True if it waits for the lock with its node in place and is neither frozen nor cut off. */
  boolean waitsLive(long czxid, long sid) {
    return (phase == Phase.QUEUEING || phase == Phase.WAITING) && node == czxid && session == sid
        && connected && sim.now() >= pausedUntil;
  }

  /** Since when it waits and has been live: connected, and not frozen. */
  long waitingSince() {
    return Math.max(Math.max(waitingSince, liveSince), pausedUntil);
  }

  // ---- the process

  /** Runs {@code step} after {@code delay}, or once a pause ends; never once dead. */
  private void later(long delay, Runnable step) {
    sim.at(sim.now() + delay, () -> act(step));
  }

  private void act(Runnable step) {
    if (phase == Phase.DEAD) {
      return;
    }
    if (sim.now() < pausedUntil) {
      sim.at(pausedUntil, () -> act(step));
      return;
    }
    step.run();
  }

  private long leg() {
    long bound = sim.random().nextInt(5) == 0 ? Timing.SLOW_LEG : Timing.FAST_LEG;
    return (long) (sim.random().nextDouble() * bound);
  }

  /**
   * Sends one request: it runs at the server on arrival, touching the session as of the send time;
   * its reply is lost if the connection drops meanwhile, and the caller then starts over on
   * reconnect. {@code reply} gets the answer and the send time.
   */
  private void call(Supplier<String> what, Supplier<Object> op, Consumer<Object> reply, Consumer<Long> sent) {
    if (!connected) {
      return; // the reconnect starts over
    }
    long at = sim.now();
    long sid = session;
    int conn = connection;
    sim.at(at + leg(), () -> {
      server.touch(sid, at);
      Object r = op.get();
      sim.trace(() -> "  " + id + " " + what.get() + " -> " + show(r));
      sim.at(sim.now() + leg(), () -> act(() -> {
        if (conn != connection || sid != session) {
          sim.trace(() -> "  " + id + " reply to " + what.get() + " lost");
          return;
        }
        if (r == SimServer.EXPIRED) {
          expired();
          return;
        }
        long from = bugs.contains(Bug.VALID_FROM_REPLY) ? sim.now() : at;
        lastContact = Math.max(lastContact, from);
        sent.accept(from);
        reply.accept(r);
      }));
    });
  }

  private static String show(Object r) {
    if (r == SimServer.EXPIRED) {
      return "session expired";
    }
    return r instanceof Object[] a ? List.of(a).toString() : String.valueOf(r);
  }

  private void ping() {
    if (phase == Phase.DEAD) {
      return;
    }
    if (connected && sim.now() >= pausedUntil) {
      server.touch(session, sim.now()); // as of its send time: when it arrives matters not
    }
    sim.at(sim.now() + Timing.PING_EVERY, this::ping);
  }

  // ---- acquiring

  private void acquire() {
    owner = id + "-o" + (++owners);
    waitingSince = sim.now();
    sim.trace(() -> id + " wants the lock as " + owner);
    tryAcquire();
  }

  /** One tryAcquire of the engine: the grant counts from this send time. */
  private void tryAcquire() {
    phase = Phase.QUEUEING;
    attemptSentAt = sim.now();
    polls++;
    queue();
  }

  private void queue() {
    if (node == 0) {
      if (uncertain) {
        call(() -> "adopt " + owner, () -> server.find(session, owner), r -> {
          uncertain = false;
          if (r != null) {
            node = ((SimServer.Node) r).czxid();
            sim.trace(() -> "  " + id + " adopts node " + node);
          }
          queue();
        }, s -> { });
        return;
      }
      headGone = false;
      uncertain = true;
      call(() -> "create for " + owner, () -> server.create(session, owner), r -> {
        Object[] a = (Object[]) r;
        uncertain = false;
        node = ((SimServer.Node) a[0]).czxid();
        if ((Boolean) a[1]) {
          replied();
          grant();
        } else {
          list();
        }
      }, s -> { });
      return;
    }
    if (headGone) {
      // No call in this try backs the grant: count it from the last call that reached the server.
      if (!bugs.contains(Bug.HEAD_GONE_UNBACKED)) {
        attemptSentAt = Math.min(attemptSentAt, lastContact);
      }
      grant();
      return;
    }
    list();
  }

  @SuppressWarnings("unchecked")
  private void list() {
    call(() -> "list", () -> server.children(session), r -> {
      List<SimServer.Node> q = (List<SimServer.Node>) r;
      int i = -1;
      for (int k = 0; k < q.size(); k++) {
        if (q.get(k).czxid() == node) {
          i = k;
        }
      }
      if (i < 0) {
        node = 0;
        queue();
      } else if (i == 0) {
        replied();
        grant();
      } else {
        boolean head = bugs.contains(Bug.WATCH_HEAD) || i == 1;
        long target = bugs.contains(Bug.WATCH_HEAD) ? q.get(0).czxid() : q.get(i - 1).czxid();
        watched = target;
        watchedIsHead = head;
        headGone = false;
        call(() -> "watch " + target, () -> server.watch(session, target), w -> {
          if (w == null) {
            queue();
          } else {
            await();
          }
        }, s -> { });
      }
    }, s -> { });
  }

  private void await() {
    phase = Phase.WAITING;
    int mine = polls;
    if (!bugs.contains(Bug.NO_REPOLL)) {
      later(Timing.MAX_POLL, () -> {
        if (phase == Phase.WAITING && polls == mine) {
          tryAcquire();
        }
      });
    }
  }

  /** A watch event: lost if the connection it was set on dropped, else a wake-up. */
  void deleted(long sid, long czxid) {
    int conn = connection;
    act(() -> {
      if (sid != session || conn != connection || !connected) {
        sim.trace(() -> "  " + id + " watch event for " + czxid + " lost");
        return;
      }
      sim.trace(() -> id + " event: " + czxid + " deleted");
      if (czxid == watched && watchedIsHead) {
        headGone = true;
      }
      if (phase == Phase.WAITING) {
        tryAcquire();
      }
    });
  }

  /** The broken model counts a grant from the reply that made it (Bug.VALID_FROM_REPLY). */
  private void replied() {
    if (bugs.contains(Bug.VALID_FROM_REPLY)) {
      attemptSentAt = sim.now();
    }
  }

  private void grant() {
    phase = Phase.HOLDING;
    lost = false;
    handOffs = 0;
    token = node << 4;
    validFrom = attemptSentAt;
    int mine = polls;
    if (!holdsValid()) {
      loseGrant("granted with its lease run out already"); // the engine reports it lost at once
      return;
    }
    sim.trace(() -> id + " holds as " + owner + ", token " + token);
    checks.granted(id + "/" + owner, token);
    later(Timing.RENEW_EVERY, () -> renew(mine));
    later((long) (sim.random().nextDouble() * 2 * Timing.LEASE), () -> {
      if (phase == Phase.HOLDING && polls == mine) {
        finish();
      }
    });
  }

  // ---- holding

  private void renew(int grant) {
    if (phase != Phase.HOLDING || polls != grant) {
      return;
    }
    if (sim.now() >= validFrom + lease()) {
      loseGrant("its lease ran out unrenewed");
      return;
    }
    later(Timing.RENEW_EVERY, () -> renew(grant));
    recheck(grant);
  }

  /** The renewal: a sync and an exists of the node, one round trip. */
  private void recheck(int grant) {
    long n = node;
    long[] sentAt = {0};
    call(() -> "renew " + n, () -> server.check(session, n), r -> {
      if (phase != Phase.HOLDING || polls != grant) {
        return;
      }
      if ((Boolean) r) {
        validFrom = Math.max(validFrom, sentAt[0]);
      } else {
        loseGrant("its node is gone");
      }
    }, s -> sentAt[0] = s);
  }

  private void loseGrant(String why) {
    lost = true;
    sim.trace(() -> id + " reports " + owner + " lost: " + why);
    release(); // the engine releases a lost grant: its node may still stand
  }

  /** Releases, or one time in three hands the grant to another owner of this process. */
  private void finish() {
    if (holdsValid() && handOffs < 15 && connected && sim.random().nextInt(3) == 0) {
      handOffs++;
      owner = id + "-o" + (++owners);
      token = bugs.contains(Bug.HANDOFF_KEEPS_TOKEN) ? token : token + 1;
      sim.trace(() -> id + " hands off to " + owner + ", token " + token);
      checks.granted(id + "/" + owner, token);
      int mine = polls;
      later((long) (sim.random().nextDouble() * Timing.LEASE), () -> {
        if (phase == Phase.HOLDING && polls == mine) {
          finish();
        }
      });
      return;
    }
    sim.trace(() -> id + " releases " + owner);
    release();
  }

  private void release() {
    phase = Phase.RELEASING;
    long n = node;
    call(() -> "delete " + n, () -> server.delete(session, n), r -> done(), s -> { });
  }

  private void done() {
    phase = Phase.IDLE;
    node = 0;
    uncertain = false;
    later((long) (sim.random().nextDouble() * Timing.LEASE), this::acquire);
  }

  // ---- faults

  /** The session ended at the server: grants are lost, the next try queues on a new session. */
  private void expired() {
    sim.trace(() -> id + " learns session " + session + " expired");
    if (phase == Phase.HOLDING) {
      lost = true;
    }
    session = server.openSession(this);
    lastContact = sim.now();
    connection++;
    node = 0;
    uncertain = false;
    resume();
  }

  /** Starts over after a reconnect: a holder re-checks its node at once, a waiter tries again. */
  private void resume() {
    liveSince = sim.now();
    switch (phase) {
      case HOLDING -> {
        if (lost) {
          done();
        } else {
          recheck(polls);
        }
      }
      case QUEUEING, WAITING -> tryAcquire();
      case RELEASING -> {
        if (!server.alive(session) || node == 0) {
          done();
        } else {
          release();
        }
      }
      default -> { }
    }
  }

  void disconnect(long micros) {
    act(() -> {
      if (!connected) {
        return;
      }
      sim.trace(() -> id + " loses its connection for " + micros + " us");
      connected = false;
      connection++;
      suspended();
      later(micros, this::reconnect);
    });
  }

  /**
   * SessionStates on SUSPENDED: once the lease minus a tenth has passed since the last contact and
   * the connection is still down, the grant is reported lost.
   */
  private void suspended() {
    int conn = connection;
    long at = Math.max(sim.now(), lastContact + Timing.LEASE - Timing.LEASE / 10);
    sim.at(at, () -> act(() -> {
      if (conn == connection && phase == Phase.HOLDING && !lost) {
        lost = true;
        sim.trace(() -> id + " reports " + owner + " lost: suspended too long");
      }
    }));
  }

  private void reconnect() {
    if (connected) {
      return;
    }
    connected = true;
    connection++;
    if (!server.alive(session)) {
      expired();
      return;
    }
    sim.trace(() -> id + " reconnects to session " + session);
    server.touch(session, sim.now());
    resume();
  }

  /** Freezes the process; after a pause past the read timeout its connection has dropped. */
  void pause(long micros) {
    if (phase == Phase.DEAD || sim.now() < pausedUntil) {
      return;
    }
    sim.trace(() -> id + " pauses for " + micros + " us");
    pausedUntil = sim.now() + micros;
    if (micros >= Timing.READ_TIMEOUT && connected) {
      connected = false;
      connection++;
      suspended();
      sim.at(pausedUntil, () -> act(this::reconnect));
    }
  }

  void crash() {
    sim.trace(() -> id + " crashes");
    phase = Phase.DEAD;
  }
}
