package dev.dlock.zookeeper;

import dev.dlock.BackendUnavailableException;
import dev.dlock.spi.Attempt;
import dev.dlock.spi.LockKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and deletes the contenders' nodes, for every kind of lock. Why apart from the recipes:
 * a reply can be lost after the server acted, so a create may have made a node nobody knows of
 * and a delete may have deleted it already; each call here is safe to repeat (a create looks for
 * its node first, a delete accepts a node gone by its own earlier try), and a contender whose node
 * cannot be deleted in time is left to a background thread rather than leaked. The recipes decide
 * who holds; this class only keeps their nodes straight. It is also the context the three recipes
 * (the exclusive lock in the backend, {@link ReadWriteQueue}, {@link SemaphoreQueue}) share: the
 * backend makes it and passes it down, so no recipe reaches back into the backend. It also holds
 * the one rule by which every recipe grants ({@link #granted}, {@link #grantFound}).
 */
final class QueueNodes {
  private static final Logger log = LoggerFactory.getLogger(QueueNodes.class);

  private final ZkSession session;
  private final Map<String, Contender> contenders;

  QueueNodes(ZkSession session, Map<String, Contender> contenders) {
    this.session = session;
    this.contenders = contenders;
  }

  /**
   * Creates the contender's node; true if it is then the only node in its directory, which grants
   * any kind without listing the queue. Why a transaction with a write to the directory: its result
   * carries the directory's Stat as of the create, whose child count says whether anyone else is
   * queued, and whose mzxid is the transaction's, that is the node's czxid. An uncontended acquire
   * is then one round trip. The semaphore's directory keeps its permit count as data, which no
   * client rewrites, so a semaphore's node is a plain create.
   */
  boolean enter(Contender c) {
    String prefix = c.dir + "/" + c.prefix;
    byte[] data = c.owner.getBytes(StandardCharsets.UTF_8);
    boolean touchDir = c.kind != LockKind.PERMIT;
    c.headGone = false; // it watched for an earlier node
    return session.call(() -> "create a node for lock '" + c.name + "'", zk -> {
      if (c.uncertain && adopt(zk, c)) {
        return false;
      }
      while (true) {
        c.uncertain = true; // from here until the answer, the node may exist without our knowing
        try {
          boolean alone = false;
          if (touchDir) {
            List<OpResult> r = zk.multi(List.of(
                Op.create(prefix, data, session.acl, CreateMode.EPHEMERAL_SEQUENTIAL),
                Op.setData(c.dir, c.dirData, -1)));
            Stat dir = ((OpResult.SetDataResult) r.get(1)).getStat();
            c.zxid = dir.getMzxid();
            c.sessionId = zk.sessionId();
            c.node = ((OpResult.CreateResult) r.get(0)).getPath();
            alone = dir.getNumChildren() == 1;
          } else {
            Requests.Created node = zk.create(prefix, data, session.acl, CreateMode.EPHEMERAL_SEQUENTIAL);
            c.node = node.path();
            c.zxid = node.stat().getCzxid();
            c.sessionId = node.stat().getEphemeralOwner();
          }
          c.uncertain = false;
          return alone;
        } catch (KeeperException.NoNodeException e) {
          c.uncertain = false; // nothing was created
          makeDirs(zk, c.dir, c.dirData);
        } catch (KeeperException e) {
          // Only a lost answer leaves the outcome open; any other error means nothing was created.
          c.uncertain = e.code() == KeeperException.Code.CONNECTIONLOSS
              || e.code() == KeeperException.Code.OPERATIONTIMEOUT;
          throw e;
        }
      }
    });
  }

  /** After a create whose answer was lost: finds the owner's node, if it was made. */
  private boolean adopt(Requests zk, Contender c) throws KeeperException {
    String found;
    try {
      found = Nodes.find(zk.getChildren(c.dir), c.prefix);
    } catch (KeeperException.NoNodeException e) {
      found = null;
    }
    Stat stat = found == null ? null : zk.exists(c.dir + "/" + found, null);
    c.uncertain = false;
    if (stat == null) {
      return false;
    }
    String path = c.dir + "/" + found;
    if (stat.getEphemeralOwner() != zk.sessionId()) {
      // Made by an earlier session of this client, which is ending: do not wait behind it.
      try {
        zk.delete(path);
      } catch (KeeperException.NoNodeException e) {
        // gone already
      }
      return false;
    }
    c.zxid = stat.getCzxid();
    c.sessionId = stat.getEphemeralOwner();
    c.node = path;
    return true;
  }

  /**
   * Creates {@code path} with {@code data}, and any missing parents, as container nodes, which
   * vanish when empty.
   */
  private void makeDirs(Requests zk, String path, byte[] data) throws KeeperException {
    try {
      zk.create(path, data, session.acl, CreateMode.CONTAINER);
    } catch (KeeperException.NodeExistsException e) {
      // made by another client
    } catch (KeeperException.NoNodeException e) {
      makeDirs(zk, path.substring(0, path.lastIndexOf('/')), new byte[0]);
      makeDirs(zk, path, data);
    }
  }

  List<String> children(String dir, Supplier<String> what) {
    return session.call(what, zk -> {
      try {
        return zk.getChildren(dir);
      } catch (KeeperException.NoNodeException e) {
        return List.of();
      }
    });
  }

  /**
   * Takes the contender out of the queue: deletes its node, repeating through connection losses
   * for up to the connect timeout, or the caller's shorter bound. True if this call deleted the node; false if there was none
   * or its session had ended (which deletes the node too). If the server cannot be reached in
   * time, a background thread keeps trying until the delete succeeds or the session is gone, and
   * the caller gets a {@link BackendUnavailableException} at once.
   */
  boolean leave(Contender c) {
    c.leaving = true;
    try {
      return delete(c, session.url.connectTimeout());
    } catch (BackendUnavailableException e) {
      leaveLater(c);
      throw e;
    } finally {
      contenders.remove(c.owner, c);
    }
  }

  /** Deletes the contender's node in the background, until done or its session is gone. */
  void leaveLater(Contender c) {
    c.leaving = true;
    contenders.remove(c.owner, c);
    if (c.node == null && !c.uncertain) {
      return;
    }
    // Not given up after a while: a session that outlives the outage (a paused server that comes
    // back in time) keeps the node, and with it the lock, for as long as this client lives.
    Thread t = new Thread(() -> {
      boolean warned = false;
      while (!session.isClosed()) {
        try {
          delete(c, session.sessionTimeout().plus(session.url.connectTimeout()));
          return;
        } catch (BackendUnavailableException e) {
          if (!warned && !session.isClosed()) {
            warned = true;
            log.warn("dlock: could not delete node {} of lock '{}' on {} yet; trying until it is deleted or"
                + " its session ends", c.node, c.name, session.url.redacted(), e);
          }
        } catch (RuntimeException e) {
          if (!session.isClosed()) {
            log.warn("dlock: could not delete node {} of lock '{}' on {}; it goes when its session ends",
                c.node, c.name, session.url.redacted(), e);
          }
          return;
        }
      }
    }, "dlock-zookeeper-leave");
    t.setDaemon(true);
    t.start();
  }

  private boolean delete(Contender c, Duration patience) {
    int[] tries = {0};
    return session.call(() -> "delete the node of " + c.owner + " for lock '" + c.name + "'", patience, zk -> {
      if (c.uncertain && !adopt(zk, c)) {
        return false;
      }
      if (c.node == null || c.sessionId != zk.sessionId()) {
        return false; // never created, or its session ended and took the node
      }
      try {
        tries[0]++;
        zk.delete(c.node);
        return true;
      } catch (KeeperException.NoNodeException e) {
        return tries[0] > 1; // an earlier try deleted it, and its answer was lost
      }
    });
  }

  /** Grants {@code token} to a contender whose create just told it that it is alone ({@link #enter}). */
  Attempt granted(Contender c, long token) {
    c.token = token;
    c.granted = true;
    return Attempt.granted(token);
  }

  /**
   * Grants {@code token} to a contender that found itself granted by a watch event or a listing,
   * in a try that began at {@code tried} ({@link ZkSession#now}); null if its node is gone or its
   * session changed, and the caller queues again. Why not simply granted: the engine counts a
   * grant valid for the lease from the try's send, and neither an event nor a listing (a
   * follower's read) shows that the leader has not expired the session meanwhile; the ZooKeeper
   * queue simulation found a waiter, paused while its predecessor's delete event waited, granting
   * itself a node its expired session had taken with it (seed 4050). So the grant is valid for as
   * long as the session's last word from the leader ({@link ZkSession#lastContact()}) lasts: the
   * whole lease if that word was sent after the try began (its create, say), as it then lasts
   * longer than the engine counts, else what is left of it;
   * with a third of the lease or less left, a sync and an exists of the node (one round trip)
   * first confirm that it still stands, which is such a word. A short grant is safe: the engine
   * renews at once any grant with less than two thirds of the lease left.
   */
  @Nullable Attempt grantFound(Contender c, long token, long tried) {
    long lease = session.lease().toNanos();
    long contact = session.lastContact();
    long left = contact + lease - session.now();
    boolean fresh = contact - tried >= 0;
    if (!fresh && left <= lease / 3) {
      if (!confirmed(c)) {
        return null;
      }
      fresh = true; // the confirm's sync went through the leader after the try began
    }
    c.token = token;
    c.granted = true;
    return fresh ? Attempt.granted(token) : Attempt.granted(token, Duration.ofNanos(Math.max(1, left)));
  }

  /** Whether the contender's node still stands in its session, as of a sync sent now. */
  private boolean confirmed(Contender c) {
    String node = c.createdNode();
    long sid = c.sessionId;
    return session.call(() -> "confirm that " + c.kind + " lock '" + c.name + "' is granted", zk -> {
      if (zk.sessionId() != sid) {
        return false; // a new session: the node went with the old one
      }
      CompletableFuture<Void> synced = zk.syncLater();
      CompletableFuture<Stat> stat = zk.existsLater(node, null);
      zk.await(synced);
      return zk.await(stat) != null;
    });
  }

  /** This client's contender of {@code owner}, or null. */
  @Nullable Contender contender(String owner) {
    return contenders.get(owner);
  }

  /**
   * Watches {@code child} of the contender's directory, the node it waits for; false if that node
   * is gone already. {@code head}: it ranks first, so its delete makes the contender first.
   */
  boolean watch(Contender c, String child, boolean head) {
    String path = c.dir + "/" + child;
    c.headGone = false;
    c.watched = path;
    c.watchedIsHead = head;
    return session.call(() -> "watch " + path, zk -> zk.exists(path, c.watcher) != null);
  }
}
