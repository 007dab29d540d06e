package dev.dlock.zookeeper;

import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockKind;
import dev.dlock.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The S13 read-write lock, improved version. Readers and writers of a name queue in one container
 * directory, each node named with its side. A reader holds when no writer ranks ahead of it, else
 * it watches the last writer ahead; a writer holds when it ranks first, else it watches the node
 * just ahead. Why no watch on the directory's children: such a watch fires for every waiter on
 * every change (the herd); with these exists watches a writer's release wakes exactly the readers
 * queued before the next writer, and a queued writer wakes when the node ahead of it goes. A
 * downgraded reader carries its writer's sequence and ranks right behind that writer, so a writer
 * queued behind the holder also waits for the downgraded reader, while the reader itself is granted
 * at once beside its own writer. Tokens: every grant's node was made after those of all grants
 * before it that it excludes, so its czxid orders it; readers granted together may get theirs out
 * of grant order, which no writer can observe.
 */
final class ReadWriteQueue {
  private final ZkSession session;
  private final QueueNodes queueNodes;

  ReadWriteQueue(ZkSession session, QueueNodes queueNodes) {
    this.session = session;
    this.queueNodes = queueNodes;
  }

  /** The held write grant a READ request downgrades from, or null for a plain reader or a writer. */
  @Nullable Contender writerOf(LockRequest r) {
    Contender w = r.kind() == LockKind.READ && r.writer() != null ? queueNodes.contender(r.writer()) : null;
    return w != null && w.kind == LockKind.WRITE && w.granted && !w.lost && w.name.equals(r.name())
        && w.node != null ? w : null;
  }

  /** The side a node gets: {@code W}, {@code R}, or {@code D<seq>} beside the held write {@code w}. */
  static String side(LockRequest r, @Nullable Contender w) {
    if (r.kind() == LockKind.WRITE) {
      return "W";
    }
    return w == null ? "R" : "D" + Nodes.seq(Nodes.child(w.createdNode()));
  }

  /** Creates the node if needed, then grants, or watches the one node it waits for. */
  Attempt queue(Contender c, boolean willWait) {
    long tried = session.now();
    while (true) {
      if (c.node == null || c.sessionId != session.sessionId()) {
        c.node = null; // a node of an ended session is gone with it
        if (queueNodes.enter(c)) {
          return queueNodes.granted(c, token(c));
        }
      }
      List<String> queue = Nodes.rwQueue(
          queueNodes.children(c.dir, () -> "list the queue of read-write lock '" + c.name + "'"));
      String mine = Nodes.child(c.createdNode());
      int i = queue.indexOf(mine);
      if (i < 0) {
        c.node = null; // deleted from outside, or its session ended meanwhile: queue again
        continue;
      }
      String ahead = blocker(c, queue, i, Nodes.side(mine));
      if (ahead == null) {
        Attempt a = queueNodes.grantFound(c, token(c), tried);
        if (a != null) {
          return a;
        }
        c.node = null; // its session ended, or is ending, while it waited: queue again
        continue;
      }
      String holder = Nodes.rwOwnerOf(queue.get(0));
      if (!willWait) {
        return Attempt.held(Duration.ZERO, holder);
      }
      // Never taken as the head: a downgraded reader can still be queued right behind its writer,
      // ahead of this node, so the queue is listed again after every wake-up.
      if (queueNodes.watch(c, ahead, false)) {
        return Attempt.held(session.sessionTimeout(), holder);
      }
      // The node ahead left between the listing and the watch: look again.
    }
  }

  private static long token(Contender c) {
    // Twice the czxid, and one more for a downgrade: a downgraded reader's token then lies
    // between its writer's and that of any node made later, such as a writer queued behind.
    return c.downgradeOf != 0 ? c.downgradeOf + 1 : 2 * c.zxid;
  }

  /** The node that {@code queue.get(i)} waits for, or null if it may hold now. */
  private static @Nullable String blocker(Contender c, List<String> queue, int i, String side) {
    if (side.equals("W")) {
      return i == 0 ? null : queue.get(i - 1);
    }
    if (side.startsWith("D")) {
      String writerSeq = side.substring(1);
      for (String n : queue) {
        if (Nodes.side(n).equals("W") && Nodes.seq(n).equals(writerSeq)) {
          return null; // its own writer holds: the downgrade is granted beside it
        }
      }
      throw new IllegalStateException(String.format(
          "read lock '%s' for %s downgrades from a write lock (node sequence %s) that is no longer held",
          c.name, c.owner, writerSeq));
    }
    for (int j = i - 1; j >= 0; j--) {
      if (Nodes.side(queue.get(j)).equals("W")) {
        return queue.get(j);
      }
    }
    return null;
  }
}
