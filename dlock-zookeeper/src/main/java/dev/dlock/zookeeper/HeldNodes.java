package dev.dlock.zookeeper;

import dev.dlock.BackendUnavailableException;
import dev.dlock.spi.BackendContext;
import dev.dlock.spi.Grant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * Watches and checks the nodes of this client's grants, of every kind. Why: a grant is its node,
 * and a node can go while its session lives on, deleted by an administrator, a cleanup script or
 * a client with the same credentials; the next waiter is then granted at once. So each granted
 * node carries a watch (this one object, found again by path, so that a grant handed to another
 * owner of this client keeps it), and its deletion is reported lost as soon as the event comes.
 * And a renewal is a real round trip, a sync and an exists of each node, pipelined: it proves, as
 * of a moment after it was sent, that each node still exists as created by the live session, so
 * the engine may count the hold valid from that send time for {@link ZkSession#lease()}, the
 * shortest time the leader keeps the session from then on (the sync also makes the renewal pass
 * through the leader, which that bound needs). Losses are reported on the session's own thread,
 * never on ZooKeeper's event thread, where a holder's loss callback could stall every watch.
 */
final class HeldNodes implements Watcher {
  private final ZkSession session;
  private final Map<String, Contender> contenders;
  private volatile @Nullable BackendContext context;

  HeldNodes(ZkSession session, Map<String, Contender> contenders) {
    this.session = session;
    this.contenders = contenders;
  }

  void start(BackendContext context) {
    this.context = context;
  }

  /** Watches the node of a grant just made, without waiting; a node gone already is reported lost. */
  void watch(Contender c) {
    ZooKeeper zk;
    try {
      zk = session.zk();
    } catch (Exception e) {
      return; // no connection: the renewal, or the end of the session, will tell
    }
    Requests.existsAsync(zk, c.createdNode(), this).whenComplete((stat, error) -> {
      if (error == null && !sameNode(c, stat)) {
        lose(c, "was deleted right after it was granted");
      }
    });
  }

  @Override
  public void process(WatchedEvent event) {
    String path = event.getPath();
    if (path == null || session.isClosed()) {
      return;
    }
    Event.EventType type = event.getType();
    if (type != Event.EventType.NodeDeleted && type != Event.EventType.NodeDataChanged) {
      return;
    }
    for (Contender c : contenders.values()) {
      if (path.equals(c.node) && c.granted) {
        if (type == Event.EventType.NodeDeleted) {
          lose(c, "was deleted while held, though its session lives: by an administrator or a client"
              + " with the same credentials");
        } else {
          watch(c); // a semaphore holder's touch fired the watch: set it again
        }
      }
    }
  }

  private void lose(Contender c, String what) {
    if (c.leaving || contenders.get(c.owner) != c || !c.claimLoss()) {
      return;
    }
    Grant g = c.grant();
    String reason = String.format("its node %s on %s %s", c.node, session.url.redacted(), what);
    BackendContext ctx = Objects.requireNonNull(context, "context, set at start");
    session.report(() -> ctx.lost(g, reason));
  }

  /**
   * The renewal: the grants whose node is gone, or is not the one granted, or belongs to a session
   * that ended. One round trip for the whole batch, bounded like every call.
   */
  Set<Grant> renew(Collection<Grant> grants) {
    session.checkOpen();
    if (!session.connected()) {
      throw new BackendUnavailableException(String.format(
          "%s: the connection is suspended, so the session may expire; %d lease(s) are uncertain",
          session.url.redacted(), grants.size()));
    }
    long sid = session.sessionId();
    Set<Grant> gone = new HashSet<>();
    List<Grant> checked = new ArrayList<>(grants.size());
    List<Contender> held = new ArrayList<>(grants.size());
    for (Grant g : grants) {
      Contender c = contenders.get(g.owner());
      if (c == null || !c.holds(g) || c.sessionId != sid) {
        gone.add(g);
      } else {
        checked.add(g);
        held.add(c);
      }
    }
    if (held.isEmpty()) {
      return gone;
    }
    boolean[] alive = session.call("renew " + held.size() + " lease(s)", zk -> {
      boolean[] ok = new boolean[held.size()];
      if (zk.sessionId() != sid) {
        return ok; // a new session: the nodes went with the old one
      }
      CompletableFuture<Void> synced = zk.syncLater();
      List<CompletableFuture<Stat>> stats = new ArrayList<>(held.size());
      for (Contender c : held) {
        stats.add(zk.existsLater(c.createdNode(), this)); // sets the watch again, should it have fired
      }
      zk.await(synced);
      for (int i = 0; i < ok.length; i++) {
        ok[i] = sameNode(held.get(i), zk.await(stats.get(i)));
      }
      return ok;
    });
    for (int i = 0; i < alive.length; i++) {
      if (!alive[i]) {
        held.get(i).claimLoss();
        gone.add(checked.get(i));
      }
    }
    return gone;
  }

  /** True if {@code stat} is the contender's node as created: same creation and session. */
  private static boolean sameNode(Contender c, Stat stat) {
    return stat != null && stat.getCzxid() == c.zxid && stat.getEphemeralOwner() == c.sessionId;
  }
}
