package dev.dlock.zookeeper.sim;

/**
 * What happens to a client's process and connection: a stop-the-world pause (past the read
 * timeout, its connection drops), a lost connection and its reconnect to the same session or the
 * discovery that the session expired, and a crash, after which its session is left to expire.
 * After a reconnect a waiter tries again and a holder re-checks its node.
 */
final class Faults {
  private final ClientState s;
  private final Queueing queueing;
  private final Holding holding;

  Faults(ClientState s, Queueing queueing, Holding holding) {
    this.s = s;
    this.queueing = queueing;
    this.holding = holding;
    s.onExpiry(this::expired);
  }

  /** The session ended at the server: grants are lost, the next try queues on a new session. */
  private void expired() {
    s.sim.trace(() -> s.id + " learns session " + s.session + " expired");
    holding.sessionExpired();
    s.session = s.server.openSession(queueing);
    s.lastContact = s.sim.now();
    s.connection++;
    s.node = 0;
    s.uncertain = false;
    resume();
  }

  /** Starts over after a reconnect: a holder re-checks its node at once, a waiter tries again. */
  private void resume() {
    s.liveSince = s.sim.now();
    switch (s.phase) {
      case HOLDING, RELEASING -> holding.resume();
      case QUEUEING, WAITING -> queueing.tryAcquire();
      default -> { }
    }
  }

  void disconnect(long micros) {
    s.act(() -> {
      if (!s.connected) {
        return;
      }
      s.sim.trace(() -> s.id + " loses its connection for " + micros + " us");
      s.connected = false;
      s.connection++;
      suspended();
      s.later(micros, this::reconnect);
    });
  }

  /**
   * SessionStates on SUSPENDED: once the lease minus a tenth has passed since the last contact and
   * the connection is still down, the grant is reported lost.
   */
  private void suspended() {
    int conn = s.connection;
    long at = Math.max(s.sim.now(), s.lastContact + Timing.LEASE - Timing.LEASE / 10);
    s.sim.at(at, () -> s.act(() -> {
      if (conn == s.connection) {
        holding.suspendedTooLong();
      }
    }));
  }

  private void reconnect() {
    if (s.connected) {
      return;
    }
    s.connected = true;
    s.connection++;
    if (!s.server.alive(s.session)) {
      expired();
      return;
    }
    s.sim.trace(() -> s.id + " reconnects to session " + s.session);
    s.server.touch(s.session, s.sim.now());
    resume();
  }

  /** Freezes the process; after a pause past the read timeout its connection has dropped. */
  void pause(long micros) {
    if (s.phase == Phase.DEAD || s.sim.now() < s.pausedUntil) {
      return;
    }
    s.sim.trace(() -> s.id + " pauses for " + micros + " us");
    s.pausedUntil = s.sim.now() + micros;
    if (micros >= Timing.READ_TIMEOUT && s.connected) {
      s.connected = false;
      s.connection++;
      suspended();
      s.sim.at(s.pausedUntil, () -> s.act(this::reconnect));
    }
  }

  void crash() {
    s.sim.trace(() -> s.id + " crashes");
    s.phase = Phase.DEAD;
  }
}
