package dev.dlock.zookeeper;

import dev.dlock.spi.Attempt;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * A semaphore of n permits: each contender's ephemeral sequential node queues in the name's
 * container directory, whose data is n; the first n nodes hold permits, so a crashed holder's
 * permit comes back when its session ends. Why the first waiter watches all n holders while later
 * waiters watch only their predecessor: the deletion of any of the n nodes ahead frees the first
 * waiter's permit, so a single watch on one of them (say the node n places ahead) would strand it
 * when another holder leaves. With this rule a release wakes the first waiter only; once granted
 * with nodes behind it, a contender touches its own node (a setData), which wakes its successor,
 * now perhaps the first waiter, to watch the holders in turn; a successor that finds its
 * predecessor already touched when it sets its watch looks again. So a release wakes at most two
 * clients whatever the queue length, and only one for n = 1, where the predecessor is the one
 * holder and no touch is needed. An uncontended grant, with nobody behind, stays two round trips.
 */
final class SemaphoreQueue {
  private final ZkSession session;
  private final QueueNodes queueNodes;

  SemaphoreQueue(ZkSession session, QueueNodes queueNodes) {
    this.session = session;
    this.queueNodes = queueNodes;
  }

  /** Creates the node if needed, then grants, or watches the nodes whose deletion may let it in. */
  Attempt queue(Contender c, boolean willWait) {
    int n = c.permits;
    long tried = session.now();
    while (true) {
      if (c.node == null || c.sessionId != session.sessionId()) {
        c.node = null; // a node of an ended session is gone with it
        queueNodes.enter(c);
      }
      Listing l = list(c);
      if (l.permits > 0 && l.permits != n) {
        queueNodes.leave(c);
        c.node = null;
        throw new IllegalArgumentException(String.format(
            "semaphore '%s' has %d permits, not %d: every client must ask for the same permits",
            c.name, l.permits, n));
      }
      List<String> queue = Nodes.queue(l.children);
      int i = queue.indexOf(Nodes.child(c.createdNode()));
      if (i < 0) {
        c.node = null; // deleted from outside, or its session ended meanwhile: queue again
        continue;
      }
      if (i < n) {
        Attempt a = queueNodes.grantFound(c, c.zxid, tried);
        if (a == null) {
          c.node = null; // its session ended, or is ending, while it waited: queue again
          continue;
        }
        if (n > 1 && i + 1 < queue.size()) {
          touch(c); // the node behind may be a waiter watching only this one
        }
        return a;
      }
      String holder = Nodes.ownerOf(queue.get(0));
      if (!willWait) {
        return Attempt.held(Duration.ZERO, holder);
      }
      boolean first = i == n;
      if (watch(c, first ? queue.subList(0, n) : List.of(queue.get(i - 1)), !first)) {
        return Attempt.held(session.sessionTimeout(), holder);
      }
      // A node left between the listing and the watch: look again.
    }
  }

  private record Listing(List<String> children, int permits) {}

  /** The directory's children and its permit count (0 if unknown), in one round trip. */
  private Listing list(Contender c) {
    return session.call(() -> "list the queue of semaphore '" + c.name + "'", zk -> {
      List<OpResult> rs;
      try {
        rs = zk.multi(List.of(Op.getChildren(c.dir), Op.getData(c.dir)));
      } catch (KeeperException.NoNodeException e) {
        return new Listing(List.of(), 0);
      }
      if (!(rs.get(0) instanceof OpResult.GetChildrenResult kids)) {
        return new Listing(List.of(), 0);
      }
      int permits = 0;
      if (rs.get(1) instanceof OpResult.GetDataResult data && data.getData() != null) {
        try {
          permits = Integer.parseInt(new String(data.getData(), StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException e) {
          permits = 0; // not written by dlock: nothing to compare with
        }
      }
      return new Listing(kids.getChildren(), permits);
    });
  }

  /**
   * Sets the contender's watcher on each node; false if one of them is gone already, or, for a
   * predecessor ({@code untouched}), if it was granted and touched since the listing, which this
   * watch would then have missed.
   */
  private boolean watch(Contender c, List<String> children, boolean untouched) {
    return session.call(() -> "watch the holders of semaphore '" + c.name + "'", zk -> {
      // Sent together and answered in order: one round trip however many permits.
      List<CompletableFuture<Stat>> answers = new ArrayList<>(children.size());
      for (String child : children) {
        answers.add(zk.existsLater(c.dir + "/" + child, c.watcher));
      }
      boolean all = true;
      for (CompletableFuture<Stat> answer : answers) {
        Stat stat = zk.await(answer);
        if (stat == null || (untouched && stat.getVersion() > 0)) {
          all = false;
        }
      }
      return all;
    });
  }

  /** Wakes the waiter behind a newly granted one, which watches this node, by changing its data. */
  private void touch(Contender c) {
    String node = c.createdNode();
    byte[] data = c.owner.getBytes(StandardCharsets.UTF_8);
    session.call(() -> "wake the next waiter of semaphore '" + c.name + "'", zk -> {
      try {
        zk.setData(node, data);
        return true;
      } catch (KeeperException.NoNodeException e) {
        return false; // its session ended: the deletion woke the successor instead
      }
    });
  }
}
