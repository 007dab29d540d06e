package dev.dlock.zookeeper.sim;

import dev.dlock.testkit.sim.Scheduler;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the three parts of a simulated client share (Queueing, Holding, Faults): its phase, its
 * session and connection, its owner and node, and the process's steps and calls. A step waits out
 * a pause and never runs once the process is dead; a call's reply is lost with its connection.
 */
final class ClientState {
  final String id;
  final Scheduler sim;
  final SimServer server;
  final Set<Bug> bugs;
  Phase phase = Phase.IDLE;
  long session;
  int connection;
  boolean connected = true;
  long pausedUntil;
  long liveSince;
  /** The send time of the latest call answered on this session, as ZkSession.lastContact(). */
  long lastContact;
  /** Counts tries: a step of an earlier try or grant finds it moved on and does nothing. */
  int polls;
  String owner;
  long node;
  /** A create was sent whose reply did not come: the next try adopts the node, if made. */
  boolean uncertain;
  private int owners;
  private Runnable expired = () -> { };

  ClientState(String id, Scheduler sim, SimServer server, Set<Bug> bugs) {
    this.id = id;
    this.sim = sim;
    this.server = server;
    this.bugs = bugs;
  }

  /** What to do when a reply says the session has ended. */
  void onExpiry(Runnable expired) {
    this.expired = expired;
  }

  /** The next owner of this process: a new acquisition or a hand-off. */
  String newOwner() {
    return id + "-o" + (++owners);
  }

  /** Runs {@code step} after {@code delay}, or once a pause ends; never once dead. */
  void later(long delay, Runnable step) {
    sim.at(sim.now() + delay, () -> act(step));
  }

  void act(Runnable step) {
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
   * reconnect. {@code reply} gets the answer and {@code sent} the send time.
   */
  void call(Supplier<String> what, Supplier<Object> op, Consumer<Object> reply, Consumer<Long> sent) {
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
          expired.run();
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

  /** The ZooKeeper client's ping after a third of the timeout idle, while connected and not frozen. */
  void ping() {
    if (phase == Phase.DEAD) {
      return;
    }
    if (connected && sim.now() >= pausedUntil) {
      server.touch(session, sim.now()); // as of its send time: when it arrives matters not
    }
    sim.at(sim.now() + Timing.PING_EVERY, this::ping);
  }
}
