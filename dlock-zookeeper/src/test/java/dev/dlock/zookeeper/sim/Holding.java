package dev.dlock.zookeeper.sim;

import dev.dlock.testkit.sim.Invariants;

/**
 * A client's holder path, as the engine's Renewer and ZooKeeperBackend renew, release and hand
 * off: the grant counts valid for the lease from the send time of the try that granted it or of
 * its last answered renewal (a sync and an exists of the node), renewed every third of the lease;
 * then it is released, or handed to another owner of this process with the next token.
 */
final class Holding {
  private final ClientState s;
  private final Invariants checks;
  private final long lease;
  private long token;
  private long validFrom;
  private boolean lost;
  private int handOffs;
  private Runnable next = () -> { };

  Holding(ClientState s, Invariants checks) {
    this.s = s;
    this.checks = checks;
    this.lease = s.bugs.contains(Bug.LEASE_IS_SESSION_TIMEOUT) ? Timing.SESSION_TIMEOUT : Timing.LEASE;
  }

  /** Counts its grant valid by its own lease rule: not told of a loss, and the lease not run out. */
  boolean holdsValid() {
    return s.phase == Phase.HOLDING && !lost && s.sim.now() < validFrom + lease;
  }

  String holding() {
    return s.id + "/" + s.owner + " (node " + s.node + ", token " + token + ", valid from " + validFrom + ")";
  }

  /** The try sent at {@code from} granted the node; {@code next} starts the next acquisition. */
  void grant(long from, Runnable next) {
    this.next = next;
    s.phase = Phase.HOLDING;
    lost = false;
    handOffs = 0;
    token = s.node << 4;
    validFrom = from;
    int mine = s.polls;
    if (!holdsValid()) {
      loseGrant("granted with its lease run out already"); // the engine reports it lost at once
      return;
    }
    s.sim.trace(() -> s.id + " holds as " + s.owner + ", token " + token);
    checks.granted(s.id + "/" + s.owner, token);
    s.later(Timing.RENEW_EVERY, () -> renew(mine));
    s.later((long) (s.sim.random().nextDouble() * 2 * Timing.LEASE), () -> {
      if (s.phase == Phase.HOLDING && s.polls == mine) {
        finish();
      }
    });
  }

  private void renew(int grant) {
    if (s.phase != Phase.HOLDING || s.polls != grant) {
      return;
    }
    if (s.sim.now() >= validFrom + lease) {
      loseGrant("its lease ran out unrenewed");
      return;
    }
    s.later(Timing.RENEW_EVERY, () -> renew(grant));
    recheck(grant);
  }

  /** The renewal: a sync and an exists of the node, one round trip. */
  private void recheck(int grant) {
    long n = s.node;
    long[] sentAt = {0};
    s.call(() -> "renew " + n, () -> s.server.check(s.session, n), r -> {
      if (s.phase != Phase.HOLDING || s.polls != grant) {
        return;
      }
      if ((Boolean) r) {
        validFrom = Math.max(validFrom, sentAt[0]);
      } else {
        loseGrant("its node is gone");
      }
    }, sent -> sentAt[0] = sent);
  }

  private void loseGrant(String why) {
    lost = true;
    s.sim.trace(() -> s.id + " reports " + s.owner + " lost: " + why);
    release(); // the engine releases a lost grant: its node may still stand
  }

  /** Releases, or one time in three hands the grant to another owner of this process. */
  private void finish() {
    if (holdsValid() && handOffs < 15 && s.connected && s.sim.random().nextInt(3) == 0) {
      handOffs++;
      s.owner = s.newOwner();
      token = s.bugs.contains(Bug.HANDOFF_KEEPS_TOKEN) ? token : token + 1;
      s.sim.trace(() -> s.id + " hands off to " + s.owner + ", token " + token);
      checks.granted(s.id + "/" + s.owner, token);
      int mine = s.polls;
      s.later((long) (s.sim.random().nextDouble() * Timing.LEASE), () -> {
        if (s.phase == Phase.HOLDING && s.polls == mine) {
          finish();
        }
      });
      return;
    }
    s.sim.trace(() -> s.id + " releases " + s.owner);
    release();
  }

  private void release() {
    s.phase = Phase.RELEASING;
    long n = s.node;
    s.call(() -> "delete " + n, () -> s.server.delete(s.session, n), r -> done(), sent -> { });
  }

  private void done() {
    s.phase = Phase.IDLE;
    s.node = 0;
    s.uncertain = false;
    next.run();
  }

  /** After a reconnect: a holder re-checks its node at once; a release is sent again if needed. */
  void resume() {
    if (s.phase == Phase.HOLDING) {
      if (lost) {
        done();
      } else {
        recheck(s.polls);
      }
    } else if (s.phase == Phase.RELEASING) {
      if (!s.server.alive(s.session) || s.node == 0) {
        done();
      } else {
        release();
      }
    }
  }

  /** The session ended at the server: a grant held on it is lost. */
  void sessionExpired() {
    if (s.phase == Phase.HOLDING) {
      lost = true;
    }
  }

  /** SessionStates reports the grant lost after a suspension as long as the lease minus a tenth. */
  void suspendedTooLong() {
    if (s.phase == Phase.HOLDING && !lost) {
      lost = true;
      s.sim.trace(() -> s.id + " reports " + s.owner + " lost: suspended too long");
    }
  }
}
