package dev.dlock.zookeeper;

import dev.dlock.spi.BackendContext;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * What the connection's state changes mean for one backend's grants and waiters, of every kind.
 * Why here and not in the recipes: in ZooKeeper the session is the lease, so a grant ends with
 * its session whatever the kind; the recipes only track which session made each node. SUSPENDED
 * makes the leases uncertain and starts a timer that reports them lost once the session may have
 * expired ({@link ZkSession#lease()} after the last call that reached the leader); LOST, or a
 * reconnect on a new session, reports them lost at once; waiters are woken to queue again on the
 * new session. Each report names the sessions it ends, never "all": Curator runs its listeners on
 * a thread of its own, so a LOST may be handled after the next session is up and has granted.
 * Every reconnect is also passed on to the engine, which then re-checks each hold at once rather
 * than at its next renewal: while the connection was down a node may have been deleted, and the
 * client sets its watch again on the new server, which fires it ahead of the answer to that
 * re-check's sync; so the hold is reported lost then at the latest.
 */
final class SessionStates {
  private final ZkSession session;
  private final Map<String, Contender> contenders;
  /** Bumped on every connection state change, so a pending suspension timer can tell it is stale. */
  private final AtomicLong epoch = new AtomicLong();
  private volatile @Nullable BackendContext context;
  /** The session and its timeout as last seen, to tell a reconnect that began a new session or changed the timeout. */
  private volatile long sessionId;
  private volatile @Nullable Duration lease;

  SessionStates(ZkSession session, Map<String, Contender> contenders) {
    this.session = session;
    this.contenders = contenders;
  }

  void start(BackendContext context) {
    this.context = context;
    this.sessionId = session.sessionId();
    this.lease = session.sessionTimeout();
    session.addListener(this::stateChanged);
  }

  void stateChanged(@Nullable CuratorFramework client, ConnectionState state) {
    switch (state) {
      case SUSPENDED -> suspended();
      case CONNECTED -> reconnected(false);
      case RECONNECTED -> reconnected(true);
      case LOST -> {
        epoch.incrementAndGet();
        // Every session but the one connected now has ended. The lab saw this handled after a
        // waiter had been granted on the new session: that grant is not lost.
        long live = session.connected() ? session.sessionId() : 0;
        endSessions(c -> c.sessionId != live,
            "the ZooKeeper session of " + session.url.redacted() + " expired or was lost");
      }
      default -> { }
    }
  }

  /**
   * The lease becomes uncertain: the session may expire {@link ZkSession#lease()} after the last
   * answered call that went through the leader, the same bound the engine counts holds by. Not
   * from the last answer of any kind: a follower cut off from the leader still answers pings and
   * reads, and the leader hears of them late or never. A tenth of the lease is kept back for the
   * delay of the report.
   */
  private void suspended() {
    long mine = epoch.incrementAndGet();
    long lease = session.lease().toNanos();
    long delay = Math.max(0, session.lastContact() + lease - lease / 10 - session.now());
    long sid = session.sessionId();
    CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> {
      if (epoch.get() == mine && !session.connected()) {
        endSessions(c -> c.sessionId == sid, String.format(
            "the connection to %s was suspended for longer than the session timeout (%d ms) surely"
            + " allows: %d ms from the last call that reached the leader, the session may have expired",
            session.url.redacted(), session.sessionTimeout().toMillis(), session.lease().toMillis()));
      }
    });
  }

  private void reconnected(boolean again) {
    epoch.incrementAndGet();
    long sid = session.sessionId();
    endSessions(c -> c.node != null && c.sessionId != sid,
        "the ZooKeeper session of " + session.url.redacted() + " expired; a new one began");
    BackendContext ctx = context;
    if (again && ctx != null) {
      Duration timeout = session.sessionTimeout();
      Duration was = Objects.requireNonNull(lease, "lease, set at start");
      String change = timeout.equals(was) ? "" : String.format(
          "; the session timeout is now %d ms, was %d ms", timeout.toMillis(), was.toMillis());
      String fresh = sid == sessionId ? "" : " (a new session)";
      lease = timeout;
      sessionId = sid;
      ctx.reconnected(String.format("reconnected to %s, session 0x%x%s%s", session.url.redacted(), sid,
          fresh, change));
    }
  }

  /**
   * Reports the grants of the contenders whose session has {@code ended} lost, and wakes those
   * that wait so they queue again on the next session.
   */
  private void endSessions(Predicate<Contender> ended, String reason) {
    BackendContext ctx = context;
    if (ctx == null) {
      return;
    }
    for (Contender c : contenders.values()) {
      if (!ended.test(c)) {
        continue;
      }
      if (c.granted) {
        if (c.claimLoss()) {
          ctx.lost(c.grant(), reason);
        }
      } else {
        ctx.released(c.name);
      }
    }
  }
}
