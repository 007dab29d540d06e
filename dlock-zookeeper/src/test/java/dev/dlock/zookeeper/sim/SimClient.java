package dev.dlock.zookeeper.sim;

import dev.dlock.testkit.sim.Holder;
import dev.dlock.testkit.sim.Invariants;
import dev.dlock.testkit.sim.Scheduler;
import java.util.Set;

/**
 * One client process with one ZooKeeper session and one owner competing for the lock, as
 * ZooKeeperBackend, QueueNodes, HeldNodes, SessionStates and the engine's waiting loop behave. It
 * is made of three parts over one shared state: the acquire path (Queueing), the holder's renew,
 * release and hand-off (Holding), and the faults: pause, lost connection, expiry, crash (Faults).
 * Connection drops lose replies and watch events; a pause freezes everything; a crash ends the
 * process, its session left to expire. One call is in flight at a time, besides pings.
 */
final class SimClient implements Holder {
  private final ClientState state;
  private final Queueing queueing;
  private final Holding holding;
  private final Faults faults;

  SimClient(String id, Scheduler sim, SimServer server, Invariants checks, Set<Bug> bugs) {
    state = new ClientState(id, sim, server, bugs);
    holding = new Holding(state, checks);
    queueing = new Queueing(state, holding);
    faults = new Faults(state, queueing, holding);
  }

  String id() {
    return state.id;
  }

  Phase phase() {
    return state.phase;
  }

  void start(long delay) {
    state.session = state.server.openSession(queueing);
    state.liveSince = state.sim.now();
    state.sim.at(state.sim.now() + Timing.PING_EVERY, state::ping);
    state.later(delay, queueing::acquire);
  }

  // ---- what the invariants read

  @Override
  public boolean holdsValid() {
    return holding.holdsValid();
  }

  long node() {
    return state.node;
  }

  @Override
  public String holding() {
    return holding.holding();
  }

  /** True if it waits for the lock with its node in place and is neither frozen nor cut off. */
  boolean waitsLive(long czxid, long sid) {
    return (state.phase == Phase.QUEUEING || state.phase == Phase.WAITING) && state.node == czxid
        && state.session == sid && state.connected && state.sim.now() >= state.pausedUntil;
  }

  /** Since when it waits and has been live: connected, and not frozen. */
  long waitingSince() {
    return Math.max(Math.max(queueing.waitingSince(), state.liveSince), state.pausedUntil);
  }

  // ---- the faults the simulation injects

  void pause(long micros) {
    faults.pause(micros);
  }

  void disconnect(long micros) {
    faults.disconnect(micros);
  }

  void crash() {
    faults.crash();
  }
}
